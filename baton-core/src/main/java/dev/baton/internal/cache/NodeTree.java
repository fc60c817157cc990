package dev.baton.internal.cache;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.BiPredicate;

/**
 * A local copy of the nodes below a path, keyed by their path relative to it ({@code db/url};
 * {@code ""} is the path itself, kept only by caches that include it).
 *
 * <p>The copy is changed by facts, each true of the ensemble at one moment: "this node holds
 * this", "this node is absent", "these are all the children of that one". Facts from one session
 * arrive in the order the ensemble made them true (ZooKeeper answers a session's requests in
 * order, and sends a watch's event before the reply of any later request), so applying each as it
 * arrives, the last one winning, keeps the copy equal to the ensemble as of the last fact: no
 * version comparisons are needed. Each method returns the changes it made, as {@code same} (the
 * owner's idea of "nothing a listener needs to hear") tells them apart: so a reload after a
 * reconnection reports only what really changed, never a node that merely was read again.
 *
 * <p>One writer at a time (the caller's lock); readers need no lock.
 *
 * @param <N> what a node holds
 */
public final class NodeTree<N> {

  /** A node changed: {@code before} null when it appeared, {@code after} null when it went. */
  public record Change<N>(String key, N before, N after) {}

  private final ConcurrentSkipListMap<String, N> nodes = new ConcurrentSkipListMap<>();
  private final BiPredicate<N, N> same;

  /** @param same whether a node replaced by another (both non-null) is no change worth telling */
  public NodeTree(BiPredicate<N, N> same) {
    this.same = same;
  }

  public N node(String key) {
    return nodes.get(key);
  }

  /** A live, sorted, read-only view of every node. */
  public Map<String, N> nodes() {
    return java.util.Collections.unmodifiableNavigableMap(nodes);
  }

  /** Whether any node lies below {@code key}. */
  public boolean hasDescendants(String key) {
    return !below(key).isEmpty();
  }

  /** The nodes strictly below {@code key}, sorted, read-only: between {@code key + "/"} and {@code key + "0"}. */
  public Map<String, N> descendants(String key) {
    return java.util.Collections.unmodifiableNavigableMap(below(key));
  }

  /** Fact: {@code key} holds {@code node}. */
  public List<Change<N>> put(String key, N node) {
    N old = nodes.put(key, node);
    List<Change<N>> changes = new ArrayList<>(1);
    record(changes, key, old, node);
    return changes;
  }

  /** Fact: {@code key} is absent, so is everything below it ({@code ""}: everything). */
  public List<Change<N>> removeSubtree(String key) {
    List<Change<N>> changes = removeDescendants(key);
    N old = nodes.remove(key);
    record(changes, key, old, null);
    return changes;
  }

  /** Fact: {@code key} has no children. */
  public List<Change<N>> removeDescendants(String key) {
    List<Change<N>> changes = new ArrayList<>();
    for (Iterator<Map.Entry<String, N>> it = below(key).entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, N> entry = it.next();
      it.remove();
      record(changes, entry.getKey(), entry.getValue(), null);
    }
    return changes;
  }

  /** Fact: the children of {@code key} are exactly {@code names}. */
  public List<Change<N>> retainChildren(String key, Collection<String> names) {
    Set<String> keep = names instanceof Set<String> set ? set : new HashSet<>(names);
    String start = key.isEmpty() ? "" : key + "/";
    List<Change<N>> changes = new ArrayList<>();
    for (Iterator<Map.Entry<String, N>> it = below(key).entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, N> entry = it.next();
      String rest = entry.getKey().substring(start.length());
      int slash = rest.indexOf('/');
      if (!keep.contains(slash < 0 ? rest : rest.substring(0, slash))) {
        it.remove();
        record(changes, entry.getKey(), entry.getValue(), null);
      }
    }
    return changes;
  }

  /** Replaces the whole copy with {@code keys} (a snapshot file's, say), before any fact arrived. */
  public List<Change<N>> load(Map<String, N> keys) {
    List<Change<N>> changes = removeSubtree("");
    keys.forEach((key, node) -> changes.addAll(put(key, node)));
    return changes;
  }

  private ConcurrentNavigableMap<String, N> below(String key) {
    // '0' is the character after '/', so the range holds exactly the paths that start with key/.
    return key.isEmpty() ? nodes.tailMap("", false) : nodes.subMap(key + "/", true, key + "0", false);
  }

  private void record(List<Change<N>> changes, String key, N before, N after) {
    if (before == null && after == null) {
      return;
    }
    if (before == null || after == null || !same.test(before, after)) {
      changes.add(new Change<>(key, before, after));
    }
  }
}
