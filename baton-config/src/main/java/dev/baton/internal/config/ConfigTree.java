package dev.baton.internal.config;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import org.apache.zookeeper.data.Stat;

/**
 * A config center's local copy of the nodes under its prefix, keyed by their path relative to it
 * ({@code db/url}); folders (nodes without data) included, the prefix itself not.
 *
 * <p>The copy is changed by facts, each true of the ensemble at one moment: "this node holds
 * this", "this node is absent", "these are all the children of that one". Facts from one session
 * arrive in the order the ensemble made them true (ZooKeeper answers a session's requests in
 * order, and sends a watch's event before the reply of any later request), so applying each as it
 * arrives, the last one winning, keeps the copy equal to the ensemble as of the last fact: no
 * version comparisons are needed. Each method returns the changes of keys' values it made.
 *
 * <p>One writer at a time (the caller's lock); readers need no lock.
 */
final class ConfigTree {

  /** A node: {@code value} null for a folder (no data). */
  record Node(String value, int version, long czxid) {
    static Node of(byte[] data, Stat stat) {
      return new Node(data == null ? null : new String(data, StandardCharsets.UTF_8), stat.getVersion(),
          stat.getCzxid());
    }

    boolean isKey() {
      return value != null;
    }
  }

  /** A key's value changed: {@code oldValue} null when it appeared, {@code newValue} null when it went. */
  record Change(String key, String oldValue, String newValue) {}

  private final ConcurrentSkipListMap<String, Node> nodes = new ConcurrentSkipListMap<>();

  Node node(String key) {
    return nodes.get(key);
  }

  /** Every key and its value, sorted. */
  Map<String, String> values() {
    Map<String, String> values = new TreeMap<>();
    nodes.forEach((key, node) -> {
      if (node.isKey()) {
        values.put(key, node.value());
      }
    });
    return values;
  }

  /** Every key and its node, sorted (folders left out). */
  Map<String, Node> keys() {
    Map<String, Node> keys = new TreeMap<>();
    nodes.forEach((key, node) -> {
      if (node.isKey()) {
        keys.put(key, node);
      }
    });
    return keys;
  }

  /** Whether any node lies below {@code key}. */
  boolean hasDescendants(String key) {
    return !below(key).isEmpty();
  }

  /** Fact: {@code key} holds {@code node}. */
  List<Change> put(String key, Node node) {
    Node old = nodes.put(key, node);
    List<Change> changes = new ArrayList<>(1);
    record(changes, key, old, node);
    return changes;
  }

  /** Fact: {@code key} is absent, so is everything below it ({@code ""}: everything). */
  List<Change> removeSubtree(String key) {
    List<Change> changes = removeDescendants(key);
    if (!key.isEmpty()) {
      Node old = nodes.remove(key);
      record(changes, key, old, null);
    }
    return changes;
  }

  /** Fact: {@code key} has no children. */
  List<Change> removeDescendants(String key) {
    List<Change> changes = new ArrayList<>();
    for (Iterator<Map.Entry<String, Node>> it = below(key).entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, Node> entry = it.next();
      it.remove();
      record(changes, entry.getKey(), entry.getValue(), null);
    }
    return changes;
  }

  /** Fact: the children of {@code key} ({@code ""}: the prefix) are exactly {@code names}. */
  List<Change> retainChildren(String key, Collection<String> names) {
    Set<String> keep = names instanceof Set<String> set ? set : new HashSet<>(names);
    String start = key.isEmpty() ? "" : key + "/";
    List<Change> changes = new ArrayList<>();
    for (Iterator<Map.Entry<String, Node>> it = below(key).entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, Node> entry = it.next();
      String rest = entry.getKey().substring(start.length());
      int slash = rest.indexOf('/');
      if (!keep.contains(slash < 0 ? rest : rest.substring(0, slash))) {
        it.remove();
        record(changes, entry.getKey(), entry.getValue(), null);
      }
    }
    return changes;
  }

  /** Replaces the whole copy with {@code keys} (a snapshot file's), before any fact arrived. */
  List<Change> load(Map<String, Node> keys) {
    List<Change> changes = removeSubtree("");
    keys.forEach((key, node) -> changes.addAll(put(key, node)));
    return changes;
  }

  /** The nodes strictly below {@code key}: between {@code key + "/"} and {@code key + "0"}. */
  private ConcurrentNavigableMap<String, Node> below(String key) {
    // '0' is the character after '/', so the range holds exactly the paths that start with key/.
    return key.isEmpty() ? nodes : nodes.subMap(key + "/", true, key + "0", false);
  }

  private static void record(List<Change> changes, String key, Node before, Node after) {
    String oldValue = before == null ? null : before.value();
    String newValue = after == null ? null : after.value();
    if (!Objects.equals(oldValue, newValue)) {
      changes.add(new Change(key, oldValue, newValue));
    }
  }
}
