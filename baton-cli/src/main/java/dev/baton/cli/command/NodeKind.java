package dev.baton.cli.command;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.Collection;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What a node is, told from the names of its children (and, for a service, their data), as the
 * recipes lay them out on the wire: Baton's and Curator's alike. A pure function, so that {@code
 * baton tree} and the checks of the recipe commands read the same rules.
 */
public enum NodeKind {
  MUTEX("mutex"),
  READ_WRITE_LOCK("read-write lock"),
  SEMAPHORE("semaphore"),
  LEADER_LATCH("leader latch"),
  DOUBLE_BARRIER("double barrier"),
  QUEUE("queue"),
  SERVICE("service"),
  /** Nothing below it that a recipe made: a folder, a config key, a barrier, or nothing at all. */
  PLAIN("node");

  private static final ObjectMapper JSON = new ObjectMapper();
  // Curator's protected names put "_c_<uuid>-" before the recipe's own prefix.
  private static final String PROTECTED = "(_c_[0-9a-f-]{36}-)?";
  private static final Pattern LOCK_NODE = Pattern.compile(PROTECTED + "lock-\\d{10}");
  private static final Pattern RW_NODE = Pattern.compile(PROTECTED + "__(READ|WRIT)__\\d{10}");
  private static final Pattern LATCH_NODE = Pattern.compile(PROTECTED + "latch-\\d{10}");
  private static final Pattern QUEUE_NODE = Pattern.compile("queue-\\d{10}");
  private static final Pattern UUID = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

  private final String label;

  NodeKind(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }

  /** Whether its children are the recipe's own (lock nodes, items, instances), summed up rather than listed. */
  public boolean hidesChildren() {
    return this != PLAIN;
  }

  /**
   * The kind of a node whose children are {@code children}: name to data (data may be null when
   * not known). Needs every child to fit a recipe's layout, so a folder that happens to hold one
   * {@code lock-} node among others stays {@link #PLAIN}.
   */
  static NodeKind of(Map<String, byte[]> children) {
    Collection<String> names = children.keySet();
    if (names.isEmpty()) {
      return PLAIN;
    }
    if (names.stream().allMatch(n -> LOCK_NODE.matcher(n).matches())) {
      return MUTEX;
    }
    if (names.stream().allMatch(n -> RW_NODE.matcher(n).matches())) {
      return READ_WRITE_LOCK;
    }
    if (names.stream().allMatch(n -> LATCH_NODE.matcher(n).matches())) {
      return LEADER_LATCH;
    }
    if (names.stream().allMatch(n -> n.equals("leases") || n.equals("locks")) && names.contains("leases")) {
      return SEMAPHORE;
    }
    // A queue's claims and its dead letters (a queue of their own) sit beside its items.
    if (names.stream().allMatch(n -> QUEUE_NODE.matcher(n).matches() || n.equals("claims") || n.equals("dead"))) {
      return QUEUE;
    }
    // Before the double barrier's rule: a service's instance ids are UUIDs by default too, and only
    // the data tells them apart (a barrier member's node holds none).
    if (children.values().stream().allMatch(NodeKind::isServiceInstance)) {
      return SERVICE;
    }
    if (names.stream().allMatch(n -> n.equals("ready") || UUID.matcher(n).matches())) {
      return DOUBLE_BARRIER;
    }
    return PLAIN;
  }

  /** curator-x-discovery's instance JSON: it names the service, the id and when it registered. */
  private static boolean isServiceInstance(byte[] data) {
    if (data == null || data.length == 0 || data[0] != '{') {
      return false;
    }
    try {
      JsonNode node = JSON.readTree(data);
      return node.has("name") && node.has("id") && node.has("registrationTimeUTC");
    } catch (IOException e) {
      return false;
    }
  }
}
