package dev.baton.bench.lock;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/** The raw ZooKeeper client, one session per client, running one {@link RawPattern}. */
public final class RawLibrary implements LockLibrary {
  private final RawPattern pattern;

  public RawLibrary(RawPattern pattern) {
    this.pattern = pattern;
  }

  @Override
  public LockClient connect(String connectString) throws Exception {
    return new Client(connectRaw(connectString), pattern);
  }

  /** A raw session with the same timeout the libraries ask for; waits until connected. */
  public static ZooKeeper connectRaw(String connectString) throws Exception {
    CountDownLatch connected = new CountDownLatch(1);
    ZooKeeper zk = new ZooKeeper(connectString, 30_000, event -> {
      if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
        connected.countDown();
      }
    });
    if (!connected.await(15, TimeUnit.SECONDS)) {
      zk.close();
      throw new IllegalStateException("raw ZooKeeper client could not connect to " + connectString);
    }
    return zk;
  }

  private record Client(ZooKeeper zk, RawPattern pattern) implements LockClient {
    @Override
    public BenchLock lock(String path) {
      return () -> pattern.acquire(zk, path);
    }

    @Override
    public void roundTrip(String path) throws Exception {
      zk.exists(path, false);
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
}
