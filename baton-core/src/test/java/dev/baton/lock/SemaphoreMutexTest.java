package dev.baton.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.ClusterTestSupport;
import dev.baton.ConnectionState;
import dev.baton.testkit.FaultProxy;
import dev.baton.testkit.MutualExclusionChecker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The non-reentrant semaphore mutex (a semaphore of one): exclusion with strictly increasing
 * tokens, no reentrancy, leases bound to no thread, the holder and waiters it reports, and expiry
 * while holding.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SemaphoreMutexTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(20);

  private final ExecutorService threads = Executors.newCachedThreadPool();

  @AfterEach
  void stopThreads() {
    threads.shutdownNow();
  }

  private static void awaitNoNodes(String path) {
    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(raw.children(path + "/locks")).as(path + "/locks").isEmpty();
      assertThat(raw.children(path + "/leases")).as(path + "/leases").isEmpty();
    });
  }

  @Test
  void acquire_threeClientsTwoThreadsEach_exclusiveWithStrictlyIncreasingTokens() throws Exception {
    String path = "/semaphore-mutex/contract";
    int cycles = 15;
    MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
    int[] plainCounter = new int[1]; // read-increment-write with no Java synchronisation
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> running = new ArrayList<>();
    for (int c = 0; c < 3; c++) {
      Mutex shared = baton().semaphoreMutex(path);
      for (int t = 0; t < 2; t++) {
        String who = "client-" + c + "/thread-" + t;
        running.add(threads.submit(() -> {
          start.await();
          for (int i = 0; i < cycles; i++) {
            try (Lease lease = shared.acquire(WAIT)) {
              assertThat(shared.isHeldByCurrentThread()).isTrue();
              MutualExclusionChecker.Section section = checker.enter(who, lease.fencingToken());
              int seen = plainCounter[0];
              Thread.yield();
              plainCounter[0] = seen + 1;
              section.exit();
            }
            assertThat(shared.isHeldByCurrentThread()).isFalse();
          }
          return null;
        }));
      }
    }
    start.countDown();
    for (Future<?> worker : running) {
      worker.get(45, TimeUnit.SECONDS);
    }
    checker.assertNoViolations();
    assertThat(plainCounter[0]).isEqualTo(6 * cycles);
    awaitNoNodes(path);
  }

  @Test
  void acquire_secondTimeOnTheHoldingThread_waitsAndTimesOut() {
    String path = "/semaphore-mutex/not-reentrant";
    Mutex mutex = baton().semaphoreMutex(path);
    try (Lease first = mutex.acquire(WAIT)) {
      assertThat(mutex.tryAcquire(Duration.ofMillis(200))).isEmpty();
      assertThat(mutex.tryAcquire(Duration.ZERO)).isEmpty();
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> mutex.acquire(Duration.ofMillis(100)))
          .isInstanceOf(AcquireTimeoutException.class);
      assertThat(first.isValid()).isTrue();
      assertThat(mutex.isHeldByCurrentThread()).isTrue();
    }
    try (Lease again = mutex.acquire(WAIT)) {
      assertThat(again.isValid()).isTrue();
    }
    awaitNoNodes(path);
  }

  @Test
  void lease_releasedFromAnotherThread_letsTheWaiterIn() throws Exception {
    String path = "/semaphore-mutex/other-thread";
    Mutex mutex = baton().semaphoreMutex(path);
    Lease lease = mutex.acquire(WAIT);
    assertThat(threads.submit(mutex::isHeldByCurrentThread).get()).isFalse();
    CompletableFuture<Lease> waiter = baton().semaphoreMutex(path).acquireAsync();
    await().atMost(WAIT).until(() -> mutex.waiters().size() == 1);

    threads.submit(lease::close).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(mutex.isHeldByCurrentThread()).isFalse();
    try (Lease next = waiter.get(WAIT.toSeconds(), TimeUnit.SECONDS)) {
      assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
    }
    awaitNoNodes(path);
  }

  @Test
  void holderAndWaiters_showHolderThenMutexHolderThenQueue() throws Exception {
    String path = "/semaphore-mutex/view";
    Mutex mutex = baton().semaphoreMutex(path);
    assertThat(mutex.holder()).isEmpty();
    assertThat(mutex.waiters()).isEmpty();
    Lease lease = mutex.acquire(WAIT);
    Baton otherClient = baton();
    CompletableFuture<Lease> second = otherClient.semaphoreMutex(path).acquireAsync();
    await().atMost(WAIT).until(() -> raw.children(path + "/leases").size() == 2);
    CompletableFuture<Lease> third = otherClient.semaphoreMutex(path).acquireAsync();
    await().atMost(WAIT).until(() -> raw.children(path + "/locks").size() == 2);

    LockOwner holder = mutex.holder().orElseThrow();
    assertThat(holder.fencingToken()).isEqualTo(lease.fencingToken());
    assertThat(holder.thread()).isEqualTo(Thread.currentThread().getName());
    List<LockOwner> waiters = mutex.waiters();
    assertThat(waiters).hasSize(2).allSatisfy(w -> assertThat(w.sessionId()).isEqualTo(otherClient.sessionId()));
    assertThat(waiters.get(0).node()).contains("lease-");
    assertThat(waiters.get(1).node()).contains("lock-");

    lease.close();
    Lease secondLease = second.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    secondLease.close();
    third.get(WAIT.toSeconds(), TimeUnit.SECONDS).close();
    awaitNoNodes(path);
    assertThat(mutex.holder()).isEmpty();
  }

  /**
   * The holder's link goes silent past its 1 s session: it must be told SUSPECT and LOST before
   * the ensemble ends its session and the waiter gets the permit, and the waiter's token is larger.
   */
  @Test
  void expiryWhileHolding_holderToldBeforeNextHolderEnters() throws Exception {
    String path = "/semaphore-mutex/expiry-holding";
    MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
    FaultProxy proxy = closing(FaultProxy.start(cluster.address(0)));
    Baton holderClient = baton(proxy.connectString(), Duration.ofSeconds(1));
    Lease first = holderClient.semaphoreMutex(path).acquire(WAIT);
    MutualExclusionChecker.Section firstSection = checker.enter("holder", first.fencingToken());
    AtomicLong toldAt = new AtomicLong();
    List<LeaseState> told = new CopyOnWriteArrayList<>();
    first.addListener((lease, state) -> {
      told.add(state);
      toldAt.compareAndSet(0, System.nanoTime());
      firstSection.lost();
    }, Runnable::run);
    CompletableFuture<Lease> waiting = baton().semaphoreMutex(path).acquireAsync();

    proxy.blackhole();
    Lease second = waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    long enteredAt = System.nanoTime();
    checker.enter("waiter", second.fencingToken()).exit();

    assertThat(toldAt.get()).isNotZero().isLessThan(enteredAt);
    assertThat(told).contains(LeaseState.SUSPECT, LeaseState.LOST);
    assertThat(first.isValid()).isFalse();
    assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
    checker.assertNoViolations();

    proxy.restore();
    await().atMost(WAIT).until(() -> holderClient.connectionState() == ConnectionState.RECONNECTED);
    assertThat(first.state()).isEqualTo(LeaseState.LOST);
    first.close();
    firstSection.exit();
    second.close();
    awaitNoNodes(path);
  }
}
