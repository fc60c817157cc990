package dev.baton.cache;

import dev.baton.HelperZk;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/** The server's tree under a path, read with a plain client, as "data@version" per path. */
final class ServerTree {
  private ServerTree() {}

  static Map<String, String> of(HelperZk raw, String root) throws Exception {
    Map<String, String> tree = new TreeMap<>();
    walk(raw, root, tree);
    return tree;
  }

  private static void walk(HelperZk raw, String path, Map<String, String> tree) throws Exception {
    Stat stat = new Stat();
    byte[] data;
    List<String> children;
    try {
      data = raw.zk().getData(path, false, stat);
      children = raw.zk().getChildren(path, false);
    } catch (KeeperException.NoNodeException e) {
      return;
    }
    tree.put(path, (data == null ? "" : new String(data, StandardCharsets.UTF_8)) + "@" + stat.getVersion());
    for (String child : children) {
      walk(raw, path + "/" + child, tree);
    }
  }

  /** A cache's copy in the same form. */
  static Map<String, String> of(TreeCache cache) {
    Map<String, String> tree = new TreeMap<>();
    cache.nodes().forEach((path, node) -> tree.put(path, node.dataAsString() + "@" + node.version()));
    return tree;
  }
}
