package dev.baton.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.ClusterTestSupport;
import dev.baton.FencingTokens;
import dev.baton.testkit.MutualExclusionChecker;
import java.net.InetAddress;
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
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreMutex;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Baton's semaphore and semaphore mutex with Curator's {@code InterProcessSemaphoreV2} and
 * {@code InterProcessSemaphoreMutex} on the same paths: one count, one {@code locks} queue,
 * exclusion and hand-over both ways, and the requests each side sends per cycle.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SemaphoreCuratorInteropTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(20);

  private final ExecutorService threads = Executors.newCachedThreadPool();

  @AfterEach
  void stopThreads() {
    threads.shutdownNow();
  }

  /** Sessions as long as Curator's here, so neither side's session ends first under load. */
  @Override
  public Baton baton() {
    return baton(cluster.connectString(), Duration.ofSeconds(30));
  }

  private CuratorFramework curator() throws InterruptedException {
    CuratorFramework curator = CuratorFrameworkFactory.newClient(
        cluster.connectString(), 30_000, 10_000, new ExponentialBackoffRetry(50, 5));
    closing(curator);
    curator.start();
    assertThat(curator.blockUntilConnected(10, TimeUnit.SECONDS)).as("curator connected").isTrue();
    return curator;
  }

  private static void awaitNodes(String path, int locks, int leases) {
    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(raw.children(path + "/locks")).as("nodes under " + path + "/locks").hasSize(locks);
      assertThat(raw.children(path + "/leases")).as("nodes under " + path + "/leases").hasSize(leases);
    });
  }

  /** The token of the oldest lease node: the holder's while a semaphore mutex is held. */
  private static long holderToken(String path) throws Exception {
    List<String> leases = raw.children(path + "/leases");
    leases.sort((a, b) -> a.substring(a.lastIndexOf("lease-")).compareTo(b.substring(b.lastIndexOf("lease-"))));
    return FencingTokens.ofNode(raw.czxid(path + "/leases/" + leases.get(0)));
  }

  @Test
  void mixedCuratorAndBatonSemaphoresOfThree_neverHoldMoreThanThree_andAllProgress() throws Exception {
    String path = "/interop-semaphore/mixed";
    int cycles = 12;
    MutualExclusionChecker checker = MutualExclusionChecker.withCapacity(3);
    CountDownLatch start = new CountDownLatch(1);
    List<Callable<Void>> workers = new ArrayList<>();
    for (int c = 0; c < 2; c++) {
      CuratorFramework curator = curator();
      for (int t = 0; t < 2; t++) {
        String who = "curator-" + c + "/t" + t;
        InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(curator, path, 3);
        workers.add(() -> {
          start.await();
          for (int i = 0; i < cycles; i++) {
            org.apache.curator.framework.recipes.locks.Lease lease = semaphore.acquire(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(lease).as(who + " got a lease in time").isNotNull();
            MutualExclusionChecker.Section section = checker.enter(who, 0);
            Thread.yield();
            section.exit();
            semaphore.returnLease(lease);
          }
          return null;
        });
      }
    }
    for (int b = 0; b < 2; b++) {
      Semaphore shared = baton().semaphore(path, 3);
      for (int t = 0; t < 2; t++) {
        String who = "baton-" + b + "/t" + t;
        workers.add(() -> {
          start.await();
          for (int i = 0; i < cycles; i++) {
            try (Lease lease = shared.acquire(WAIT)) {
              MutualExclusionChecker.Section section = checker.enter(who, lease.fencingToken());
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
    for (Future<Void> worker : running) {
      worker.get(45, TimeUnit.SECONDS);
    }
    checker.assertNoViolations();
    assertThat(checker.sectionsByClient()).hasSize(8).allSatisfy((who, n) -> assertThat(n).as(who).isEqualTo(cycles));
    awaitNodes(path, 0, 0);
  }

  @Test
  void curatorAndBatonSemaphore_shareOneCount_andSeeEachOthersHolders() throws Exception {
    String path = "/interop-semaphore/count";
    InterProcessSemaphoreV2 curatorSemaphore = new InterProcessSemaphoreV2(curator(), path, 2);
    org.apache.curator.framework.recipes.locks.Lease curatorLease = curatorSemaphore.acquire();
    Semaphore semaphore = baton().semaphore(path, 2);
    Lease batonLease = semaphore.acquire(WAIT);

    assertThat(curatorSemaphore.acquire(100, TimeUnit.MILLISECONDS)).as("Curator when full").isNull();
    assertThat(semaphore.tryAcquire(Duration.ofMillis(100))).as("Baton when full").isEmpty();
    awaitNodes(path, 0, 2);
    assertThat(curatorSemaphore.getParticipantNodes()).hasSize(2);
    List<LockOwner> holders = semaphore.holders();
    assertThat(holders).hasSize(2);
    assertThat(holders.get(0).host()).isEqualTo(InetAddress.getLocalHost().getHostAddress());
    assertThat(holders.get(1).fencingToken()).isEqualTo(batonLease.fencingToken());

    // Each side waits on the other's release.
    CompletableFuture<Lease> batonWaiter = semaphore.acquireAsync();
    awaitNodes(path, 1, 3);
    curatorSemaphore.returnLease(curatorLease);
    Lease second = batonWaiter.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    Future<org.apache.curator.framework.recipes.locks.Lease> curatorWaiter =
        threads.submit(() -> curatorSemaphore.acquire(WAIT.toSeconds(), TimeUnit.SECONDS));
    awaitNodes(path, 1, 3);
    assertThat(curatorWaiter).isNotDone();
    batonLease.close();
    org.apache.curator.framework.recipes.locks.Lease curatorAgain = curatorWaiter.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(curatorAgain).isNotNull();
    curatorSemaphore.returnLease(curatorAgain);
    second.close();
    awaitNodes(path, 0, 0);
  }

  @Test
  void curatorAndBatonSemaphoreMutexes_excludeEachOther_andHandOverBothWays() throws Exception {
    String path = "/interop-semaphore/mutex-handover";
    InterProcessSemaphoreMutex curatorMutex = new InterProcessSemaphoreMutex(curator(), path);
    Mutex mutex = baton().semaphoreMutex(path);

    // Curator holds, Baton waits.
    curatorMutex.acquire();
    long curatorToken = holderToken(path);
    assertThat(mutex.tryAcquire(Duration.ofMillis(100))).isEmpty();
    AtomicBoolean curatorReleased = new AtomicBoolean();
    CompletableFuture<Lease> batonWaiter = mutex.acquireAsync()
        .thenApply(lease -> curatorReleased.get() ? lease : null);
    awaitNodes(path, 1, 2);
    curatorReleased.set(true);
    curatorMutex.release();
    Lease lease = batonWaiter.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(lease).as("granted only after Curator released").isNotNull();
    assertThat(lease.fencingToken()).isGreaterThan(curatorToken);

    // Baton holds, Curator waits.
    assertThat(curatorMutex.acquire(100, TimeUnit.MILLISECONDS)).isFalse();
    AtomicBoolean batonReleased = new AtomicBoolean();
    Future<Boolean> curatorWaiter = threads.submit(() -> {
      boolean got = curatorMutex.acquire(WAIT.toSeconds(), TimeUnit.SECONDS);
      boolean afterRelease = got && batonReleased.get();
      if (got) {
        assertThat(holderToken(path)).isGreaterThan(lease.fencingToken());
        curatorMutex.release();
      }
      return afterRelease;
    });
    awaitNodes(path, 1, 2);
    batonReleased.set(true);
    lease.close();
    assertThat(curatorWaiter.get(WAIT.toSeconds(), TimeUnit.SECONDS)).as("Curator got it after Baton released").isTrue();
    awaitNodes(path, 0, 0);
  }

  @Test
  void mixedSemaphoreMutexes_underContention_exclusiveWithIncreasingTokens() throws Exception {
    String path = "/interop-semaphore/mutex-mixed";
    int cycles = 12;
    MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
    CountDownLatch start = new CountDownLatch(1);
    List<Callable<Void>> workers = new ArrayList<>();
    for (int c = 0; c < 2; c++) {
      InterProcessSemaphoreMutex curatorMutex = new InterProcessSemaphoreMutex(curator(), path);
      String who = "curator-" + c;
      workers.add(() -> {
        start.await();
        for (int i = 0; i < cycles; i++) {
          assertThat(curatorMutex.acquire(WAIT.toSeconds(), TimeUnit.SECONDS)).as(who + " in time").isTrue();
          MutualExclusionChecker.Section section = checker.enter(who, holderToken(path));
          section.exit();
          curatorMutex.release();
        }
        return null;
      });
    }
    for (int b = 0; b < 2; b++) {
      Mutex mutex = baton().semaphoreMutex(path);
      String who = "baton-" + b;
      workers.add(() -> {
        start.await();
        for (int i = 0; i < cycles; i++) {
          try (Lease lease = mutex.acquire(WAIT)) {
            MutualExclusionChecker.Section section = checker.enter(who, lease.fencingToken());
            Thread.yield();
            section.exit();
          }
        }
        return null;
      });
    }
    List<Future<Void>> running = new ArrayList<>();
    for (Callable<Void> worker : workers) {
      running.add(threads.submit(worker));
    }
    start.countDown();
    for (Future<Void> worker : running) {
      worker.get(45, TimeUnit.SECONDS);
    }
    checker.assertNoViolations();
    assertThat(checker.sectionsByClient()).hasSize(4).allSatisfy((who, n) -> assertThat(n).as(who).isEqualTo(cycles));
    awaitNodes(path, 0, 0);
  }

  // ---- cost, side by side ---------------------------------------------------------------------

  /**
   * Requests per uncontended acquire+release, counted by the server: Curator sends seven, each
   * waited for (the mutex's create, listing and delete; the lease's create, listing with a watch
   * and delete; and a request removing that watch). Baton sends six and waits for two round
   * trips, setting no watch.
   */
  @Test
  void uncontendedCycle_curatorSendsSeven_batonSix() throws Exception {
    int cycles = 200;
    CuratorFramework curator = curator();
    InterProcessSemaphoreV2 curatorSemaphore = new InterProcessSemaphoreV2(curator, "/interop-semaphore/cost-c", 3);
    curatorSemaphore.returnLease(curatorSemaphore.acquire()); // creates the parents once
    curator.checkExists().forPath("/"); // answered after everything sent before it
    long before = cluster.packetsReceived(0);
    for (int i = 0; i < cycles; i++) {
      curatorSemaphore.returnLease(curatorSemaphore.acquire());
    }
    curator.checkExists().forPath("/");
    long curatorPackets = cluster.packetsReceived(0) - before - 1;

    Semaphore semaphore = baton().semaphore("/interop-semaphore/cost-b", 3);
    semaphore.acquire().close();
    semaphore.holders();
    before = cluster.packetsReceived(0);
    for (int i = 0; i < cycles; i++) {
      semaphore.acquire().close();
    }
    semaphore.holders();
    long batonPackets = cluster.packetsReceived(0) - before - 1;

    assertThat(curatorPackets * 100 / cycles).as("Curator's requests per cycle x100").isBetween(698L, 702L);
    assertThat(batonPackets * 100 / cycles).as("Baton's requests per cycle x100").isBetween(598L, 602L);
  }
}
