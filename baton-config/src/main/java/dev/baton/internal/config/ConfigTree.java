package dev.baton.internal.config;

import dev.baton.internal.cache.NodeTree;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.apache.zookeeper.data.Stat;

/**
 * A config center's local copy of the nodes under its prefix, keyed by their path relative to it
 * ({@code db/url}); folders (nodes without data) included, the prefix itself not. It is a {@link
 * NodeTree} (the copy every cache of Baton keeps, changed by facts as that class tells) whose
 * nodes are config values, and whose changes are those of keys' values: a new version of the same
 * text, or a folder coming and going, is no change.
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

  private final NodeTree<Node> nodes = new NodeTree<>((a, b) -> Objects.equals(a.value(), b.value()));

  /** The copy itself, for the sync that keeps it. */
  NodeTree<Node> nodes() {
    return nodes;
  }

  Node node(String key) {
    return nodes.node(key);
  }

  /** Every key and its value, sorted. */
  Map<String, String> values() {
    Map<String, String> values = new TreeMap<>();
    nodes.nodes().forEach((key, node) -> {
      if (node.isKey()) {
        values.put(key, node.value());
      }
    });
    return values;
  }

  /** Every key and its node, sorted (folders left out). */
  Map<String, Node> keys() {
    Map<String, Node> keys = new TreeMap<>();
    nodes.nodes().forEach((key, node) -> {
      if (node.isKey()) {
        keys.put(key, node);
      }
    });
    return keys;
  }

  /** Whether any node lies below {@code key}. */
  boolean hasDescendants(String key) {
    return nodes.hasDescendants(key);
  }

  /** The nodes strictly below {@code key} (folders included), sorted. */
  Map<String, Node> descendants(String key) {
    return nodes.descendants(key);
  }

  /** Fact: {@code key} holds {@code node}. */
  List<Change> put(String key, Node node) {
    return changesOf(nodes.put(key, node));
  }

  /** Fact: {@code key} is absent, so is everything below it ({@code ""}: everything). */
  List<Change> removeSubtree(String key) {
    return changesOf(nodes.removeSubtree(key));
  }

  /** Fact: {@code key} has no children. */
  List<Change> removeDescendants(String key) {
    return changesOf(nodes.removeDescendants(key));
  }

  /** Fact: the children of {@code key} ({@code ""}: the prefix) are exactly {@code names}. */
  List<Change> retainChildren(String key, Collection<String> names) {
    return changesOf(nodes.retainChildren(key, names));
  }

  /** Replaces the whole copy with {@code keys} (a snapshot file's), before any fact arrived. */
  List<Change> load(Map<String, Node> keys) {
    return changesOf(nodes.load(keys));
  }

  /** The changes of keys' values among the changes of nodes: folders hold none. */
  static List<Change> changesOf(List<NodeTree.Change<Node>> changes) {
    List<Change> values = new ArrayList<>(changes.size());
    for (NodeTree.Change<Node> change : changes) {
      String oldValue = change.before() == null ? null : change.before().value();
      String newValue = change.after() == null ? null : change.after().value();
      if (!Objects.equals(oldValue, newValue)) {
        values.add(new Change(change.key(), oldValue, newValue));
      }
    }
    return values;
  }
}
