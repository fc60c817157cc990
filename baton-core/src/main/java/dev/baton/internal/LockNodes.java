package dev.baton.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Names of lock nodes as Curator writes them, so both libraries queue in one order:
 * {@code _c_<uuid>-<prefix><sequence>}, ordered by the text after the last {@code <prefix>}
 * (ZooKeeper's sequence suffix is zero-padded to ten digits, so text order is number order).
 */
final class LockNodes {
  private LockNodes() {}

  /** The children that carry {@code prefix}, in queue order; other children take no part. */
  static List<String> sortedBySequence(List<String> children, String prefix) {
    List<String> nodes = new ArrayList<>(children.size());
    for (String child : children) {
      if (child.contains(prefix)) {
        nodes.add(child);
      }
    }
    nodes.sort(Comparator.comparing(node -> sequence(node, prefix)));
    return nodes;
  }

  static String sequence(String node, String prefix) {
    return node.substring(node.lastIndexOf(prefix) + prefix.length());
  }
}
