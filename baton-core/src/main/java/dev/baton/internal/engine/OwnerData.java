package dev.baton.internal.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.Baton;
import dev.baton.FencingTokens;
import dev.baton.internal.lease.ThreadLabels;
import dev.baton.internal.session.RecipePaths;
import dev.baton.lock.LockOwner;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.apache.zookeeper.data.Stat;

/**
 * The small JSON document a Baton lock node carries, so that anyone can see who holds or waits
 * ({@code {"host":"app-3","pid":4242,"thread":"buyer-7"}}). The fencing token, session and time
 * come from the node's own metadata: the token is the zxid of the create, unknown before it.
 */
public final class OwnerData {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String HOST = hostName();
  private static final long PID = ProcessHandle.current().pid();

  private OwnerData() {}

  public static byte[] forThread(Thread thread) {
    return owner(thread, false);
  }

  /**
   * The data of a node a client keeps after its holders released it ({@link
   * dev.baton.lock.MutexOptions}): held for that client, idle or in use by one of its threads.
   */
  public static byte[] cached() {
    return owner(null, true);
  }

  private static byte[] owner(Thread thread, boolean cached) {
    ObjectNode node = JSON.createObjectNode();
    node.put("host", HOST);
    node.put("pid", PID);
    node.put("thread", thread == null ? "" : threadName(thread));
    if (cached) {
      node.put("cached", true);
    }
    return node.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** The thread's name, cut so that a lock node's data stays within what its path check reserved. */
  private static String threadName(Thread thread) {
    String name = ThreadLabels.of(thread);
    return name.length() <= RecipePaths.THREAD_NAME_CHARS ? name : name.substring(0, RecipePaths.THREAD_NAME_CHARS);
  }

  /** Reads what a node says of its owner; data that is not ours (Curator's IP) goes to host. */
  static LockOwner read(String node, byte[] data, Stat stat) {
    String host = "";
    long pid = 0;
    String thread = "";
    boolean cached = false;
    String text = data == null ? "" : new String(data, StandardCharsets.UTF_8);
    try {
      JsonNode json = text.startsWith("{") ? JSON.readTree(text) : null;
      if (json != null && json.isObject()) {
        host = json.path("host").asText("");
        pid = json.path("pid").asLong(0);
        thread = json.path("thread").asText("");
        cached = json.path("cached").asBoolean(false);
      } else {
        host = text;
      }
    } catch (java.io.IOException e) {
      host = text;
    }
    return new LockOwner(node, FencingTokens.ofNode(stat.getCzxid()), host, pid, thread,
        stat.getEphemeralOwner(), Instant.ofEpochMilli(stat.getCtime()), cached);
  }

  private static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (java.io.IOException e) {
      return "unknown";
    }
  }
}
