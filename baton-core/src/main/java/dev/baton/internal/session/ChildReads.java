package dev.baton.internal.session;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.ZooKeeper;

/** Reading every child of a node without a cache: one listing, then all reads sent before waiting for any. */
public final class ChildReads {
  private ChildReads() {}

  /**
   * The data of each child of {@code serverPath}, in listing order: two round trips however many
   * children. Empty if the node does not exist; a child deleted between the listing and its read
   * is left out. For the caller's own thread (within {@link Retrying#call}, say).
   *
   * @throws KeeperException for any other error of the listing or a read, naming its path
   */
  public static Map<String, byte[]> read(ZooKeeper zk, String serverPath) throws KeeperException, InterruptedException {
    List<String> children;
    try {
      children = zk.getChildren(serverPath, false);
    } catch (KeeperException.NoNodeException e) {
      return Map.of();
    }
    int count = children.size();
    Code[] codes = new Code[count];
    byte[][] data = new byte[count][];
    CountDownLatch replies = new CountDownLatch(count);
    for (int i = 0; i < count; i++) {
      int index = i;
      zk.getData(serverPath + "/" + children.get(i), false, (rc, path, ctx, bytes, stat) -> {
        codes[index] = Code.get(rc);
        data[index] = bytes;
        replies.countDown();
      }, null);
    }
    replies.await();
    Map<String, byte[]> read = new LinkedHashMap<>();
    for (int i = 0; i < count; i++) {
      if (codes[i] == Code.OK) {
        read.put(children.get(i), data[i] == null ? new byte[0] : data[i]);
      } else if (codes[i] != Code.NONODE) {
        throw KeeperException.create(codes[i], serverPath + "/" + children.get(i));
      }
    }
    return read;
  }
}
