package dev.baton.bench.lock;

import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * Apache Curator's {@link InterProcessMutex}, set up as the baseline measured it: session timeout
 * 30 s, connection timeout 15 s, {@code ExponentialBackoffRetry(100, 3)}.
 */
public final class CuratorLibrary implements LockLibrary {
  private final Recipe recipe;

  public CuratorLibrary() {
    this(Recipe.MUTEX);
  }

  /** {@code InterProcessReadWriteLock.readLock()} or {@code InterProcessSemaphoreV2} instead. */
  public CuratorLibrary(Recipe recipe) {
    this.recipe = recipe;
  }

  @Override
  public int holdersAllowed() {
    return recipe.holdersAllowed();
  }

  @Override
  public LockClient connect(String connectString) throws InterruptedException {
    CuratorFramework client = CuratorFrameworkFactory.newClient(
        connectString, 30_000, 15_000, new ExponentialBackoffRetry(100, 3));
    client.start();
    if (!client.blockUntilConnected(15, TimeUnit.SECONDS)) {
      client.close();
      throw new IllegalStateException("Curator could not connect to " + connectString + " within 15 s");
    }
    return new Client(client, recipe);
  }

  private record Client(CuratorFramework curator, Recipe recipe) implements LockClient {
    @Override
    public BenchLock lock(String path) {
      if (recipe == Recipe.SEMAPHORE_3) {
        InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(curator, path, 3);
        return () -> {
          Lease lease = semaphore.acquire();
          return () -> semaphore.returnLease(lease);
        };
      }
      InterProcessMutex mutex = recipe == Recipe.READ_LOCK
          ? new InterProcessReadWriteLock(curator, path).readLock() : new InterProcessMutex(curator, path);
      return () -> {
        mutex.acquire();
        // Curator releases per thread: the thread that acquired must release, as the loops do.
        return mutex::release;
      };
    }

    @Override
    public void roundTrip(String path) throws Exception {
      curator.checkExists().forPath(path);
    }

    @Override
    public void close() {
      curator.close();
    }
  }
}
