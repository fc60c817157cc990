package dev.baton.internal.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.ConnectionState;
import dev.baton.config.ConfigInstance;
import dev.baton.config.GrayRule;
import dev.baton.internal.session.ChildReads;
import dev.baton.internal.session.Errors;
import dev.baton.internal.session.Retrying;
import dev.baton.internal.session.Session;
import dev.baton.internal.session.SessionObserver;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live config center instances of a prefix that take part in gray releases: each announces
 * itself with an ephemeral sequential node {@code <prefix>.instances/i-<n>} holding its id and
 * labels as JSON, beside the gray candidates ({@code <prefix>.gray}) and so outside the prefix,
 * where plain readers of the keys never see it. Sequential, so that two config centers of one id
 * (two in one process, say) never take each other's node.
 *
 * <p>The node lives with the session: after expiry it is made again on the new session, without
 * blocking ZooKeeper's event thread; a make whose reply was lost is sent again on the next
 * connection (a second node of the same instance may then exist until the session ends; readers
 * count an id once). Listing reads the ensemble, not a copy: one listing and one pipelined read
 * per instance.
 */
final class ConfigInstances implements SessionObserver {
  private static final Logger log = LoggerFactory.getLogger(ConfigInstances.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Session session;
  private final String prefix;
  private final String serverRoot;
  private final byte[] announcement;
  // Guarded by this.
  private Session.Handle sentOn;
  private Session.Handle announcedOn;
  private String node;
  private boolean closed;

  ConfigInstances(Session session, String prefix, String serverPrefix, String instanceId, Map<String, String> labels) {
    this.session = session;
    this.prefix = prefix;
    this.serverRoot = serverPrefix + ".instances";
    this.announcement = encode(instanceId, labels);
  }

  /** The client path instances are announced under. */
  static String clientRoot(String prefix) {
    return prefix + ".instances";
  }

  // ---- announcing this instance -------------------------------------------------------------

  /** Announces this instance now if connected, and on every new session. */
  void announce() {
    session.addObserver(this);
    synchronized (this) {
      if (session.state().isConnected()) {
        send(session.handle());
      }
    }
  }

  /** Waits (at most the connection timeout) for the announcement sent on open to be answered. */
  void awaitAnnounced(long deadlineNanos) throws InterruptedException {
    synchronized (this) {
      while (!closed && sentOn != null && announcedOn != sentOn && session.state().isConnected()) {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
          return;
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
    }
  }

  private void send(Session.Handle handle) {
    if (closed || sentOn == handle) {
      return;
    }
    sentOn = handle;
    try {
      // The root is persistent: made once by whichever instance comes first.
      handle.zk().create(serverRoot, null, session.settings().aclFor(serverRoot), CreateMode.PERSISTENT,
          (rc, path, ctx, name) -> { }, null);
      String path = serverRoot + "/i-";
      handle.zk().create(path, announcement, session.settings().aclFor(path), CreateMode.EPHEMERAL_SEQUENTIAL,
          (rc, p, ctx, name) -> announced(handle, Code.get(rc), name), null);
    } catch (RuntimeException e) {
      sentOn = null; // the handle is closing; the next connection sends it again
    }
  }

  private synchronized void announced(Session.Handle handle, Code code, String name) {
    if (code == Code.OK) {
      announcedOn = handle;
      node = name;
      if (closed) {
        sendDelete(handle, name); // closed while the announcement was on its way
      }
    } else {
      sentOn = null;
      if (!Errors.isConnectionProblem(code)) {
        log.error("The config center on {} could not announce itself under {} ({}): gray rules are checked"
            + " without it", prefix, clientRoot(prefix), code);
      }
    }
    notifyAll();
  }

  @Override
  public synchronized void connectionStateChanged(ConnectionState state, Session.Handle handle) {
    if ((state == ConnectionState.CONNECTED || state == ConnectionState.RECONNECTED) && handle == session.handle()
        && announcedOn != handle) {
      send(handle);
    }
    notifyAll();
  }

  @Override
  public synchronized void sessionClosed() {
    closed = true;
    notifyAll();
  }

  /** Stops announcing and deletes this instance's node (its session would, in the end). */
  void close() {
    session.removeObserver(this);
    CountDownLatch deleted;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      notifyAll();
      if (node == null || announcedOn != session.handle() || session.isClosed()) {
        return;
      }
      deleted = sendDelete(announcedOn, node);
    }
    try {
      // So that a gray release right after this returns no longer counts this instance.
      deleted.await(session.settings().connectionTimeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private CountDownLatch sendDelete(Session.Handle handle, String path) {
    CountDownLatch deleted = new CountDownLatch(1);
    try {
      handle.zk().delete(path, -1, (rc, p, ctx) -> deleted.countDown(), null);
    } catch (RuntimeException e) {
      deleted.countDown(); // the handle is closing: the node goes with its session
    }
    return deleted;
  }

  // ---- reading who is live ------------------------------------------------------------------

  /** The live instances, one per id, sorted by id. Retried on connection loss as the retry policy says. */
  List<ConfigInstance> live() {
    String clientRoot = clientRoot(prefix);
    return Retrying.call(session, clientRoot, zk -> {
      Map<String, ConfigInstance> byId = new LinkedHashMap<>();
      ChildReads.read(zk, serverRoot).forEach((name, data) -> {
        ConfigInstance instance = decode(name, data);
        if (instance != null) {
          byId.putIfAbsent(instance.id(), instance);
        }
      });
      List<ConfigInstance> live = new ArrayList<>(byId.values());
      live.sort(Comparator.comparing(ConfigInstance::id));
      return List.copyOf(live);
    });
  }

  /** The live instances {@code rule} reaches. */
  List<ConfigInstance> reachedBy(GrayRule rule) {
    return live().stream().filter(instance -> instance.isReachedBy(rule)).toList();
  }

  private static byte[] encode(String id, Map<String, String> labels) {
    ObjectNode json = JSON.createObjectNode();
    json.put("id", id);
    ObjectNode labelsJson = json.putObject("labels");
    labels.forEach(labelsJson::put);
    try {
      return JSON.writeValueAsBytes(json);
    } catch (IOException e) {
      throw new IllegalStateException("Cannot encode the instance " + id, e);
    }
  }

  private ConfigInstance decode(String name, byte[] data) {
    try {
      JsonNode json = JSON.readTree(data == null ? new byte[0] : data);
      Map<String, String> labels = new HashMap<>();
      json.path("labels").fields().forEachRemaining(e -> labels.put(e.getKey(), e.getValue().asText()));
      String id = json.path("id").asText("");
      if (id.isEmpty()) {
        throw new IOException("no id");
      }
      return new ConfigInstance(id, labels);
    } catch (IOException | RuntimeException e) {
      log.warn("Ignoring {}/{}: not a config center instance ({})", clientRoot(prefix), name, e.getMessage());
      return null;
    }
  }
}
