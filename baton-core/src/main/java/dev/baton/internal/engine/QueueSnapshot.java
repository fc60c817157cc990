package dev.baton.internal.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

/**
 * The nodes of one queue as one listing of its path showed them, in queue order. It is sorted
 * once and shared by every waiter the listing answers; each finds its own place by binary search
 * and keeps at most a few names of its own, so ten thousand waiters answered by one listing cost
 * one array of names, not ten thousand.
 *
 * <p>Order: by the sequence after the node's kind (zero-padded, so text order is number order),
 * as {@link LockNodes} orders them; the only nodes that share a sequence are a read-write lock's
 * write node and the read node its holder adds by downgrading, put in name order here (either
 * order gives every rule the same answer).
 */
final class QueueSnapshot {
  private final String[] nodes;
  private final List<String> kinds;
  private final long incarnation;

  private QueueSnapshot(String[] nodes, List<String> kinds, long incarnation) {
    this.nodes = nodes;
    this.kinds = kinds;
    this.incarnation = incarnation;
  }

  /**
   * The queue in {@code children}: those carrying one of {@code kinds}, sorted. {@code incarnation}
   * tells apart two lives of the path (see {@link #incarnation()}).
   */
  static QueueSnapshot of(List<String> children, List<String> kinds, long incarnation) {
    record Entry(String sequence, String node) {}
    List<Entry> entries = new ArrayList<>(children.size());
    for (String child : children) {
      String kind = LockNodes.kindOf(child, kinds);
      if (kind != null) {
        entries.add(new Entry(LockNodes.sequence(child, kind), child));
      }
    }
    entries.sort(Comparator.comparing(Entry::sequence).thenComparing(Entry::node));
    String[] nodes = new String[entries.size()];
    for (int i = 0; i < nodes.length; i++) {
      nodes[i] = entries.get(i).node();
    }
    return new QueueSnapshot(nodes, kinds, incarnation);
  }

  /**
   * The creation zxid of the lock path when it was listed. A container parent removed once empty
   * and made again starts its sequence numbers from zero, so what is known about the sequences
   * of one life of the path says nothing about the next.
   */
  long incarnation() {
    return incarnation;
  }

  int size() {
    return nodes.length;
  }

  /** The place of {@code node} in the queue, or -1 if the listing did not show it. */
  int indexOf(String node) {
    String sequence = sequenceOf(node);
    int at = firstAtOrAbove(sequence);
    for (int i = at; i < nodes.length && sequenceOf(nodes[i]).equals(sequence); i++) {
      if (nodes[i].equals(node)) {
        return i;
      }
    }
    return -1;
  }

  /** The place of the first node whose sequence is not below {@code sequence} (size() if none). */
  int firstAtOrAbove(String sequence) {
    int low = 0;
    int high = nodes.length;
    while (low < high) {
      int middle = (low + high) >>> 1;
      if (sequenceOf(nodes[middle]).compareTo(sequence) < 0) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    return low;
  }

  /** The nodes from place {@code from} up to, not including, {@code to}: a view, not a copy. */
  List<String> between(int from, int to) {
    return Collections.unmodifiableList(Arrays.asList(nodes).subList(from, to));
  }

  /** The sequence part of a node of this queue's kinds. */
  String sequenceOf(String node) {
    return LockNodes.sequence(node, LockNodes.kindOf(node, kinds));
  }
}
