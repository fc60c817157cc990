package dev.baton.internal.engine;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Names of lock nodes as Curator writes them, so both libraries queue in one order:
 * {@code _c_<uuid>-<prefix><sequence>}, ordered by the text after the last {@code <prefix>}
 * (ZooKeeper's sequence suffix is zero-padded to ten digits, so text order is number order).
 */
public final class LockNodes {
  private LockNodes() {}

  /**
   * The start of every node name one acquisition creates, {@code _c_<uuid>-}: Curator's
   * "protected" marker, by which a client finds the node a lost create reply would have named.
   */
  public static String protectedMarker(String uuid) {
    return "_c_" + uuid + "-";
  }

  /** The children that carry {@code prefix}, in queue order; other children take no part. */
  public static List<String> sortedBySequence(List<String> children, String prefix) {
    return sortedBySequence(children, List.of(prefix));
  }

  /** The children that carry one of {@code kinds}, in one queue ordered by their sequence. */
  public static List<String> sortedBySequence(List<String> children, List<String> kinds) {
    List<String> nodes = new ArrayList<>(children.size());
    for (String child : children) {
      if (kindOf(child, kinds) != null) {
        nodes.add(child);
      }
    }
    nodes.sort(Comparator.comparing(node -> sequence(node, kindOf(node, kinds))));
    return nodes;
  }

  /** The kind a node carries (the last one in its name wins), or {@code null}. */
  public static String kindOf(String node, List<String> kinds) {
    String kind = null;
    int at = -1;
    for (String candidate : kinds) {
      int index = node.lastIndexOf(candidate);
      if (index > at) {
        at = index;
        kind = candidate;
      }
    }
    return kind;
  }

  public static String sequence(String node, String prefix) {
    return node.substring(node.lastIndexOf(prefix) + prefix.length());
  }
}
