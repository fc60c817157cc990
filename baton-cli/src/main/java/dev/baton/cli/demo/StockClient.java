package dev.baton.cli.demo;

import dev.baton.Baton;
import dev.baton.cli.command.CliException;
import dev.baton.cli.command.ConnectOptions;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZKUtil;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * The demo's stock in a ZooKeeper node, read and written through a plain ZooKeeper session of its
 * own. Baton offers locks, not data, so the demo talks to ZooKeeper directly for the thing the lock
 * protects, as an application would talk to its database.
 */
public final class StockClient implements StockStore {
  private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(10);

  private final ZooKeeper zk;
  private final String connectString;

  private StockClient(ZooKeeper zk, String connectString) {
    this.zk = zk;
    this.connectString = connectString;
  }

  /** Opens a session and waits for it, at most {@code timeout}. */
  static StockClient connect(String connectString, Duration timeout) {
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper zk;
    try {
      zk = new ZooKeeper(connectString, (int) SESSION_TIMEOUT.toMillis(), event -> {
        if (event.getState() == KeeperState.SyncConnected) {
          connected.countDown();
        }
      });
    } catch (java.io.IOException | IllegalArgumentException e) {
      throw new CliException("Cannot open a ZooKeeper session to " + connectString + ": " + e.getMessage(), e);
    }
    StockClient client = new StockClient(zk, connectString);
    try {
      if (!connected.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        client.close();
        throw new CliException(ConnectOptions.noAnswer(connectString, timeout));
      }
    } catch (InterruptedException e) {
      client.close();
      Thread.currentThread().interrupt();
      throw new CliException("Interrupted while connecting to " + connectString, e);
    }
    return client;
  }

  /** Creates {@code stockPath} holding {@code count}, and its missing parents. */
  @Override
  public void create(String stockPath, int count) {
    call(stockPath, () -> {
      for (int slash = stockPath.indexOf('/', 1); slash > 0; slash = stockPath.indexOf('/', slash + 1)) {
        try {
          zk.create(stockPath.substring(0, slash), new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE,
              CreateMode.PERSISTENT);
        } catch (KeeperException.NodeExistsException shared) {
          // Other runs share the top folder.
        }
      }
      zk.create(stockPath, encode(count), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      return null;
    });
  }

  /**
   * The stock as the ensemble last committed it. The {@code sync} matters on an ensemble: this
   * session may be on a follower that has not yet applied the previous buyer's write, even though
   * that buyer has already let go of the lock through another server.
   */
  @Override
  public Stock readStock(String stockPath) {
    return call(stockPath, () -> {
      zk.sync(stockPath);
      return readNow(stockPath);
    });
  }

  private Stock readNow(String stockPath) throws KeeperException, InterruptedException {
    Stat stat = new Stat();
    byte[] data = zk.getData(stockPath, false, stat);
    return Stock.parse(data, stat.getVersion());
  }

  /** Overwrites the count whatever it is now (version -1): deliberately no compare-and-set. */
  @Override
  public void write(String stockPath, int count) {
    call(stockPath, () -> zk.setData(stockPath, encode(count), -1));
  }

  /**
   * {@inheritDoc} The check and the write are made one by the node's version; {@code seen} saves a
   * read when nothing has changed since, and a version conflict means a read and a new check.
   */
  @Override
  public boolean writeFenced(String stockPath, int count, long token, Stock seen) {
    return call(stockPath, () -> {
      Stock current = seen;
      while (token >= current.fence()) {
        try {
          zk.setData(stockPath, encode(count, token), current.version());
          return true;
        } catch (KeeperException.BadVersionException changed) {
          current = readNow(stockPath);
        }
      }
      return false;
    });
  }

  /**
   * Deletes {@code path} with everything below it, then its parent if nothing else is left there.
   * Best effort: a leftover demo folder must not turn a finished run into a failure.
   */
  @Override
  public void deleteTree(String path) {
    try {
      ZKUtil.deleteRecursive(zk, path);
      zk.delete(path.substring(0, path.lastIndexOf('/')), -1);
    } catch (KeeperException e) {
      // NONODE: already gone; NOTEMPTY: another run still uses the parent.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Whether a node exists; for tests that check the clean-up. */
  boolean exists(String path) {
    return call(path, () -> zk.exists(path, false) != null);
  }

  @Override
  public void close() {
    try {
      zk.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static byte[] encode(int count) {
    return Integer.toString(count).getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] encode(int count, long fence) {
    return Stock.text(count, fence).getBytes(StandardCharsets.US_ASCII);
  }

  private interface ZkCall<T> {
    T run() throws KeeperException, InterruptedException;
  }

  private <T> T call(String path, ZkCall<T> call) {
    try {
      return call.run();
    } catch (KeeperException e) {
      throw new CliException("ZooKeeper at " + connectString + " failed an operation on " + path
          + ": " + e.code(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliException("Interrupted during an operation on " + path, e);
    }
  }
}
