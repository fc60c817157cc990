package dev.baton.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.ClusterTestSupport;
import dev.baton.FencingTokens;
import dev.baton.testkit.MutualExclusionChecker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Baton's read-write lock and Curator's {@code InterProcessReadWriteLock} (5.9) on the same path:
 * one queue, writers exclude readers both ways, readers of both share, a downgrade by either side
 * keeps the other side's waiting writer out, and a mixed run passes the exclusion checker.
 * Curator's locks belong to the thread that took them, so each Curator actor runs on a thread of
 * its own.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReadWriteLockCuratorInteropTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(20);

  private ReadWriteLock baton(String path) {
    return baton().readWriteLock(path);
  }

  private CuratorFramework curatorClient() throws InterruptedException {
    CuratorFramework curator = CuratorFrameworkFactory.newClient(
        cluster.connectString(), 10_000, 10_000, new ExponentialBackoffRetry(50, 5));
    closing(curator);
    curator.start();
    assertThat(curator.blockUntilConnected(10, TimeUnit.SECONDS)).as("curator connected").isTrue();
    return curator;
  }

  /** A Curator lock and the one thread that takes and releases it. */
  private final class CuratorActor {
    final CuratorFramework client;
    final InterProcessReadWriteLock lock;
    final ExecutorService thread = Executors.newSingleThreadExecutor();

    CuratorActor(String path) throws InterruptedException {
      client = curatorClient();
      lock = new InterProcessReadWriteLock(client, path);
      closing(thread::shutdownNow);
    }

    <T> T run(Callable<T> action) throws Exception {
      return thread.submit(action).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    Future<Boolean> acquireLater(InterProcessMutex half) {
      return thread.submit(() -> half.acquire(WAIT.toSeconds(), TimeUnit.SECONDS));
    }

    /** The token Baton would give for the node this actor's thread holds. */
    long token(boolean write) throws Exception {
      return run(() -> {
        String node = write ? lock.writeLock().getLockPath() : lock.readLock().getLockPath();
        return FencingTokens.ofNode(client.checkExists().forPath(node).getCzxid());
      });
    }
  }

  // ---- one side writes, the other reads -------------------------------------------------------

  @Test
  void readLock_whileCuratorWriterHolds_isGrantedOnlyAfterCuratorReleases() throws Exception {
    String path = "/rw-interop/curator-writes";
    CuratorActor curator = new CuratorActor(path);
    assertThat(curator.run(() -> curator.lock.writeLock().acquire(10, TimeUnit.SECONDS))).isTrue();
    long curatorToken = curator.token(true);
    ReadWriteLock baton = baton(path);

    assertThat(baton.readLock().tryAcquire(Duration.ZERO)).isEmpty();
    CompletableFuture<Lease> reader = baton.readLock().acquireAsync();
    awaitChildren(path, 2);
    assertThat(baton.writeLock().holder().orElseThrow().fencingToken()).isEqualTo(curatorToken);
    assertThat(reader).isNotDone();

    curator.run(() -> {
      curator.lock.writeLock().release();
      return null;
    });
    Lease read = reader.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(read.fencingToken()).isGreaterThan(curatorToken);
    read.close();
    awaitChildren(path, 0);
  }

  @Test
  void curatorReadLock_whileBatonWriterHolds_timesOutThenGetsItAfterBatonReleases() throws Exception {
    String path = "/rw-interop/baton-writes";
    CuratorActor curator = new CuratorActor(path);
    Lease write = baton(path).writeLock().acquire(WAIT);

    assertThat(curator.run(() -> curator.lock.readLock().acquire(100, TimeUnit.MILLISECONDS))).isFalse();
    awaitChildren(path, 1); // Curator removed its timed-out node
    Future<Boolean> reader = curator.acquireLater(curator.lock.readLock());
    awaitChildren(path, 2);
    assertThat(reader).isNotDone();

    write.close();
    assertThat(reader.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    assertThat(curator.token(false)).isGreaterThan(write.fencingToken());
    curator.run(() -> {
      curator.lock.readLock().release();
      return null;
    });
    awaitChildren(path, 0);
  }

  @Test
  void readLocks_ofCuratorAndBaton_areHeldAtOnce() throws Exception {
    String path = "/rw-interop/shared";
    CuratorActor curator = new CuratorActor(path);
    ReadWriteLock baton = baton(path);

    assertThat(curator.run(() -> curator.lock.readLock().acquire(10, TimeUnit.SECONDS))).isTrue();
    try (Lease read = baton.readLock().acquire(WAIT)) {
      assertThat(baton.holders()).hasSize(2); // both hold before either lets go
      assertThat(read.isValid()).isTrue();
    }
    curator.run(() -> {
      curator.lock.readLock().release();
      return null;
    });
    awaitChildren(path, 0);
  }

  // ---- one queue ------------------------------------------------------------------------------

  @Test
  void readers_behindAWaitingWriterOfTheOtherLibrary_waitForIt() throws Exception {
    String path = "/rw-interop/queue-order";
    CuratorActor curatorWriter = new CuratorActor(path);
    CuratorActor curatorReader = new CuratorActor(path);
    ReadWriteLock batonReader = baton(path);
    ReadWriteLock batonWriter = baton(path);

    // Baton reads; a Curator writer queues; a Baton reader must queue behind that writer.
    Lease first = batonReader.readLock().acquire(WAIT);
    Future<Boolean> curatorWrite = curatorWriter.acquireLater(curatorWriter.lock.writeLock());
    awaitChildren(path, 2);
    assertThat(batonWriter.readLock().tryAcquire(Duration.ofMillis(100))).as("Baton reader behind Curator writer")
        .isEmpty(); // another client's reader: the test thread's own read lock would be reentrant
    first.close();
    assertThat(curatorWrite.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

    // Curator writes; a Baton writer queues; a Curator reader must queue behind that writer.
    CompletableFuture<Lease> batonWrite = batonWriter.writeLock().acquireAsync();
    awaitChildren(path, 2);
    Future<Boolean> curatorRead = curatorReader.acquireLater(curatorReader.lock.readLock());
    awaitChildren(path, 3);
    curatorWriter.run(() -> {
      curatorWriter.lock.writeLock().release();
      return null;
    });
    Lease write = batonWrite.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(curatorRead).as("Curator reader while the Baton writer holds").isNotDone();
    write.close();
    assertThat(curatorRead.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    curatorReader.run(() -> {
      curatorReader.lock.readLock().release();
      return null;
    });
    awaitChildren(path, 0);
  }

  // ---- downgrades -----------------------------------------------------------------------------

  /**
   * Curator (since CURATOR-621) adds its downgrade read node at its write node's place, below a
   * Baton writer that queued earlier and watches the write node. The Baton writer must list again
   * when the write node goes and wait for the read node.
   */
  @Test
  void batonWriter_queuedBeforeCuratorDowngrades_waitsForCuratorsReadLock() throws Exception {
    String path = "/rw-interop/curator-downgrades";
    CuratorActor curator = new CuratorActor(path);
    ReadWriteLock baton = baton(path);

    assertThat(curator.run(() -> curator.lock.writeLock().acquire(10, TimeUnit.SECONDS))).isTrue();
    CompletableFuture<Lease> writer = baton.writeLock().acquireAsync();
    awaitChildren(path, 2);
    curator.run(() -> {
      curator.lock.readLock().acquire(); // granted at once: Curator's downgrade
      curator.lock.writeLock().release();
      return null;
    });
    awaitChildren(path, 2); // Curator's read node and Baton's waiting writer

    assertThat(baton.readLock().holder()).as("Curator's downgraded reader").isPresent();
    assertThat(writer).as("Baton writer while Curator's downgraded reader reads").isNotDone();
    curator.run(() -> {
      curator.lock.readLock().release();
      return null;
    });
    writer.get(WAIT.toSeconds(), TimeUnit.SECONDS).close();
    awaitChildren(path, 0);
  }

  @Test
  void curatorWriter_queuedBeforeBatonDowngrades_waitsForBatonsReadLock() throws Exception {
    String path = "/rw-interop/baton-downgrades";
    CuratorActor curator = new CuratorActor(path);
    ReadWriteLock baton = baton(path);

    Lease write = baton.writeLock().acquire(WAIT);
    Future<Boolean> curatorWrite = curator.acquireLater(curator.lock.writeLock());
    awaitChildren(path, 2);
    Lease read = baton.readLock().acquire(WAIT);
    write.close();
    awaitChildren(path, 2); // Baton's read node and Curator's waiting writer

    assertThat(curator.lock.writeLock().getParticipantNodes()).hasSize(1);
    assertThat(curatorWrite).as("Curator writer while Baton's downgraded reader reads").isNotDone();
    read.close();
    assertThat(curatorWrite.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    curator.run(() -> {
      curator.lock.writeLock().release();
      return null;
    });
    awaitChildren(path, 0);
  }

  // ---- mixed contention -----------------------------------------------------------------------

  @Test
  void mixedCuratorAndBatonReadersAndWriters_underContention_passTheExclusionCheckAndLeaveNoNodes()
      throws Exception {
    String path = "/rw-interop/mixed";
    int cycles = 15;
    MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService threads = Executors.newCachedThreadPool();
    closing(threads::shutdownNow);
    List<Callable<Void>> workers = new ArrayList<>();

    for (int c = 0; c < 2; c++) {
      CuratorFramework client = curatorClient();
      InterProcessReadWriteLock shared = new InterProcessReadWriteLock(client, path);
      for (int t = 0; t < 3; t++) {
        boolean writes = t == 0;
        InterProcessMutex half = writes ? shared.writeLock() : shared.readLock();
        String who = "curator-" + c + (writes ? "/writer" : "/reader-" + t);
        workers.add(() -> {
          start.await();
          for (int i = 0; i < cycles; i++) {
            if (!half.acquire(WAIT.toSeconds(), TimeUnit.SECONDS)) {
              throw new AssertionError(who + " did not get the lock within " + WAIT);
            }
            String node = writes ? shared.writeLock().getLockPath() : shared.readLock().getLockPath();
            long token = FencingTokens.ofNode(client.checkExists().forPath(node).getCzxid());
            MutualExclusionChecker.Section section =
                writes ? checker.enter(who, token) : checker.enterShared(who, token);
            Thread.yield();
            section.exit();
            half.release();
          }
          return null;
        });
      }
    }
    for (int b = 0; b < 2; b++) {
      ReadWriteLock shared = baton(path);
      for (int t = 0; t < 3; t++) {
        boolean writes = t == 0;
        Mutex half = writes ? shared.writeLock() : shared.readLock();
        String who = "baton-" + b + (writes ? "/writer" : "/reader-" + t);
        workers.add(() -> {
          start.await();
          for (int i = 0; i < cycles; i++) {
            try (Lease lease = half.acquire(WAIT)) {
              MutualExclusionChecker.Section section = writes
                  ? checker.enter(who, lease.fencingToken()) : checker.enterShared(who, lease.fencingToken());
              Thread.yield();
              section.exit();
            }
          }
          return null;
        });
      }
    }

    List<Future<Void>> running = new ArrayList<>();
    for (Callable<Void> worker : workers) {
      running.add(threads.submit(worker));
    }
    start.countDown();
    for (Future<Void> f : running) {
      f.get(45, TimeUnit.SECONDS);
    }

    checker.assertNoViolations();
    assertThat(checker.sectionsByClient()).hasSize(12)
        .allSatisfy((who, count) -> assertThat(count).as(who).isEqualTo(cycles));
    awaitChildren(path, 0);
  }
}
