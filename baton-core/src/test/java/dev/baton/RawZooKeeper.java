package dev.baton;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/** A plain ZooKeeper client for tests that look at the nodes Baton leaves on the server. */
final class RawZooKeeper {
  private RawZooKeeper() {}

  static ZooKeeper connect(String connectString) throws Exception {
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper zk = new ZooKeeper(connectString, 10_000, event -> {
      if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
        connected.countDown();
      }
    });
    if (!connected.await(10, TimeUnit.SECONDS)) {
      zk.close();
      throw new IllegalStateException("raw client could not connect to " + connectString);
    }
    return zk;
  }

  /** The children of {@code path}, or none when the path does not exist (containers vanish). */
  static java.util.List<String> children(String connectString, String path) throws Exception {
    ZooKeeper zk = connect(connectString);
    try {
      return zk.exists(path, false) == null ? java.util.List.of() : zk.getChildren(path, false);
    } finally {
      zk.close();
    }
  }
}
