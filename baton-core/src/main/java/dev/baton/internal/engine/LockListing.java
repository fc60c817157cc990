package dev.baton.internal.engine;

import dev.baton.internal.session.Retrying;
import dev.baton.internal.session.Session;
import dev.baton.lock.LockOwner;
import java.util.ArrayList;
import java.util.List;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * Reads a lock queue as it stands, for the recipes' {@code holder()} and {@code waiters()}: the
 * children of the queue's path, and who owns each node. Plain reads with retries; no watch.
 */
public final class LockListing {
  private LockListing() {}

  /** The children of a lock path, read with retries; none when the path does not exist. */
  public static List<String> children(Session session, String path, String serverPath) {
    try {
      return Retrying.call(session, path, zk -> zk.getChildren(serverPath, false));
    } catch (RuntimeException e) {
      if (e.getCause() instanceof KeeperException.NoNodeException) {
        return List.of();
      }
      throw e;
    }
  }

  /** Who owns each of {@code nodes}, in the given order; nodes gone meanwhile are left out. */
  public static List<LockOwner> owners(Session session, String serverPath, List<String> nodes) {
    List<LockOwner> owners = new ArrayList<>();
    for (String node : nodes) {
      String nodePath = serverPath + "/" + node;
      Stat stat = new Stat();
      try {
        byte[] data = Retrying.call(session, nodePath, zk -> zk.getData(nodePath, false, stat));
        owners.add(OwnerData.read(node, data, stat));
      } catch (RuntimeException e) {
        if (!(e.getCause() instanceof KeeperException.NoNodeException)) {
          throw e;
        }
        // Released between the listing and the read.
      }
    }
    return owners;
  }
}
