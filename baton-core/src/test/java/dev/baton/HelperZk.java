package dev.baton;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * A plain ZooKeeper client for the mutex tests, to look at the nodes Baton (or Curator) leaves on
 * the server without going through the code under test.
 */
public final class HelperZk implements AutoCloseable {
  private final ZooKeeper zk;

  private HelperZk(ZooKeeper zk) {
    this.zk = zk;
  }

  public static HelperZk connect(String connectString) throws Exception {
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
    return new HelperZk(zk);
  }

  /** The children of {@code path} on a short-lived connection of its own. */
  public static List<String> childrenOf(String connectString, String path) throws Exception {
    try (HelperZk zk = connect(connectString)) {
      return zk.children(path);
    }
  }

  public ZooKeeper zk() {
    return zk;
  }

  /** The children of {@code path}, sorted, in a list the caller may change; none when the path does not exist. */
  public List<String> children(String path) throws Exception {
    try {
      List<String> children = new ArrayList<>(zk.getChildren(path, false));
      children.sort(null);
      return children;
    } catch (KeeperException.NoNodeException e) {
      return new ArrayList<>(); // callers filter the list, as DoubleBarrierTest's members() does
    }
  }

  public boolean exists(String path) throws Exception {
    return zk.exists(path, false) != null;
  }

  /** The zxid that created {@code path}; fails if it does not exist. */
  public long czxid(String path) throws Exception {
    Stat stat = zk.exists(path, false);
    if (stat == null) {
      throw new AssertionError("no node at " + path);
    }
    return stat.getCzxid();
  }

  public byte[] data(String path) throws Exception {
    return zk.getData(path, false, null);
  }

  /** Every path on the server, except ZooKeeper's own {@code /zookeeper} subtree. */
  public Set<String> tree() throws Exception {
    Set<String> paths = new TreeSet<>();
    Deque<String> todo = new ArrayDeque<>(List.of("/"));
    while (!todo.isEmpty()) {
      String path = todo.pop();
      if (path.equals("/zookeeper")) {
        continue;
      }
      paths.add(path);
      List<String> children;
      try {
        children = zk.getChildren(path, false);
      } catch (KeeperException.NoNodeException e) {
        continue; // removed while walking (a container going away)
      }
      for (String child : children) {
        todo.push(path.equals("/") ? "/" + child : path + "/" + child);
      }
    }
    return paths;
  }

  /** Deletes {@code path} and everything below it; does nothing if it does not exist. */
  public void deleteRecursively(String path) throws Exception {
    for (String child : children(path)) {
      deleteRecursively(path.equals("/") ? "/" + child : path + "/" + child);
    }
    try {
      zk.delete(path, -1);
    } catch (KeeperException.NoNodeException e) {
      // already gone (a container removed by the server, or a node of a closed session)
    }
  }

  @Override
  public void close() {
    try {
      zk.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
