package dev.baton.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.ClusterTestSupport;
import dev.baton.testkit.MutualExclusionChecker;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The mutex under load and its reentrancy: many clients and threads, one shared {@code Mutex}
 * object per client, hundreds of threads on one object, many async waiters on one thread.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class MutexContentionTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(30);

  private static void awaitNoChildren(String path) {
    awaitChildren(path, 0);
  }

  // ---- many clients, many threads -------------------------------------------------------------

  @Test
  void acquire_fourClientsFourThreadsSharingOneMutexEach_exclusiveIncreasingTokensAndNoOrphans()
      throws Exception {
    String path = "/contention/four-by-four";
    int clients = 4;
    int threadsPerClient = 4;
    int cyclesPerThread = 125; // 2,000 critical sections in all
    MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
    int[] plainCounter = new int[1];
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = pool(clients * threadsPerClient);
    List<Baton> batons = new ArrayList<>();
    List<Future<?>> running = new ArrayList<>();

    for (int c = 0; c < clients; c++) {
      Baton baton = baton();
      batons.add(baton);
      Mutex shared = baton.mutex(path); // one object for the client's threads
      for (int t = 0; t < threadsPerClient; t++) {
        String who = "client-" + c + "/thread-" + t;
        running.add(pool.submit(() -> {
          start.await();
          for (int i = 0; i < cyclesPerThread; i++) {
            try (Lease lease = shared.acquire(WAIT)) {
              assertThat(shared.isHeldByCurrentThread()).isTrue();
              MutualExclusionChecker.Section section = checker.enter(who, lease.fencingToken());
              try {
                int seen = plainCounter[0];
                Thread.yield();
                plainCounter[0] = seen + 1;
              } finally {
                section.exit();
              }
            }
            assertThat(shared.isHeldByCurrentThread()).isFalse();
          }
          return null;
        }));
      }
    }
    start.countDown();
    for (Future<?> f : running) {
      f.get(75, TimeUnit.SECONDS);
    }

    checker.assertNoViolations();
    Map<String, Long> byThread = checker.sectionsByClient();
    assertThat(byThread).hasSize(clients * threadsPerClient)
        .allSatisfy((who, count) -> assertThat(count).as(who).isEqualTo(cyclesPerThread));
    assertThat(plainCounter[0]).isEqualTo(clients * threadsPerClient * cyclesPerThread);

    batons.forEach(Baton::close);
    assertThat(raw.children(path)).as("lock nodes left once every client closed").isEmpty();
    try (Baton fresh = baton()) {
      assertThat(fresh.mutex(path).holder()).isEmpty();
      assertThat(fresh.mutex(path).waiters()).isEmpty();
    }
  }

  @Test
  void acquire_fiveHundredThreadsSharingOneMutex_eachGetsItOnceAndReleases() throws Exception {
    String path = "/contention/five-hundred";
    int threads = 500;
    Mutex shared = baton().mutex(path);
    MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = pool(threads);
    List<Future<?>> running = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      String who = "thread-" + t;
      running.add(pool.submit(() -> {
        start.await();
        try (Lease lease = shared.acquire(WAIT)) {
          checker.enter(who, lease.fencingToken()).exit();
        }
        return null;
      }));
    }
    start.countDown();
    for (Future<?> f : running) {
      f.get(75, TimeUnit.SECONDS);
    }

    checker.assertNoViolations();
    assertThat(checker.sectionsByClient()).hasSize(threads).allSatisfy((who, n) -> assertThat(n).isOne());
    awaitNoChildren(path);
  }

  // ---- reentrancy -----------------------------------------------------------------------------

  @Test
  void acquire_threeTimesBySameThread_deletesNodeOnlyWhenThirdLeaseCloses() throws Exception {
    String path = "/contention/reentrant";
    Mutex mutex = baton().mutex(path);
    Mutex other = baton().mutex(path);

    Lease first = mutex.acquire(WAIT);
    Lease second = mutex.acquire(WAIT);
    Lease third = mutex.tryAcquire(Duration.ZERO).orElseThrow();
    assertThat(second.fencingToken()).isEqualTo(first.fencingToken());
    assertThat(third.fencingToken()).isEqualTo(first.fencingToken());
    List<String> nodes = raw.children(path);
    assertThat(nodes).as("one node for all three levels").hasSize(1);

    first.close();
    assertThat(first.state()).isEqualTo(LeaseState.RELEASED);
    assertThat(second.isValid()).isTrue();
    assertThat(other.tryAcquire(Duration.ZERO)).as("other client after 1st close").isEmpty();
    assertThat(mutex.isHeldByCurrentThread()).isTrue();

    second.close();
    assertThat(third.isValid()).isTrue();
    assertThat(other.tryAcquire(Duration.ZERO)).as("other client after 2nd close").isEmpty();
    assertThat(mutex.isHeldByCurrentThread()).isTrue();
    // The other client's try-once node goes in the background; then only ours is left.
    await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertThat(raw.children(path)).isEqualTo(nodes));

    third.close();
    assertThat(mutex.isHeldByCurrentThread()).isFalse();
    awaitNoChildren(path);
    Lease theirs = other.tryAcquire(Duration.ZERO).orElseThrow();
    assertThat(theirs.fencingToken()).isGreaterThan(first.fencingToken());
    theirs.close();
    awaitNoChildren(path);
  }

  @Test
  void close_twiceOnOneReentrantLevel_releasesOnlyThatLevel() throws Exception {
    String path = "/contention/double-close";
    Mutex mutex = baton().mutex(path);
    Mutex other = baton().mutex(path);
    Lease outer = mutex.acquire(WAIT);
    Lease inner = mutex.acquire(WAIT);

    inner.close();
    inner.close();
    inner.close();

    assertThat(inner.state()).isEqualTo(LeaseState.RELEASED);
    assertThat(outer.isValid()).as("the outer level is still held").isTrue();
    assertThat(mutex.isHeldByCurrentThread()).isTrue();
    assertThat(other.tryAcquire(Duration.ZERO)).isEmpty();
    awaitChildren(path, 1); // the other client's try-once node goes in the background

    outer.close();
    outer.close();
    awaitNoChildren(path);
    try (Lease next = other.acquire(WAIT)) {
      assertThat(next.fencingToken()).isGreaterThan(outer.fencingToken());
    }
  }

  @Test
  void close_fromAnotherThread_releasesTheLockAndTheOwnerThreadNoLongerHoldsIt() throws Exception {
    String path = "/contention/close-elsewhere";
    Mutex mutex = baton().mutex(path);
    Mutex other = baton().mutex(path);
    ExecutorService owner = pool(1);

    Lease lease = owner.submit(() -> mutex.acquire(WAIT)).get(30, TimeUnit.SECONDS);
    assertThat(owner.submit(mutex::isHeldByCurrentThread).get(10, TimeUnit.SECONDS)).isTrue();
    assertThat(mutex.isHeldByCurrentThread()).as("test thread").isFalse();
    assertThat(other.tryAcquire(Duration.ZERO)).isEmpty();

    lease.close(); // from the test thread, not the owner
    assertThat(lease.isValid()).isFalse();
    assertThat(owner.submit(mutex::isHeldByCurrentThread).get(10, TimeUnit.SECONDS)).isFalse();
    try (Lease theirs = other.acquire(WAIT)) {
      assertThat(theirs.fencingToken()).isGreaterThan(lease.fencingToken());
    }
    // The owner thread can take it again, as a fresh (not reentrant) acquisition.
    Lease again = owner.submit(() -> mutex.acquire(WAIT)).get(30, TimeUnit.SECONDS);
    assertThat(again.fencingToken()).isGreaterThan(lease.fencingToken());
    again.close();
    lease.close(); // a late second close of the old lease must not touch the new one
    assertThat(again.state()).isEqualTo(LeaseState.RELEASED);
    awaitNoChildren(path);
  }

  @Test
  void close_ofOldLeaseAfterReacquire_doesNotReleaseTheNewHold() throws Exception {
    String path = "/contention/stale-close";
    Mutex mutex = baton().mutex(path);
    Mutex other = baton().mutex(path);
    Lease old = mutex.acquire(WAIT);
    old.close();
    awaitNoChildren(path);
    Lease current = mutex.acquire(WAIT);

    old.close();

    assertThat(current.isValid()).isTrue();
    assertThat(mutex.isHeldByCurrentThread()).isTrue();
    assertThat(other.tryAcquire(Duration.ZERO)).isEmpty();
    current.close();
    awaitNoChildren(path);
  }

  // ---- many async waiters on one thread -------------------------------------------------------

  @Test
  void acquireAsync_thousandWaitersFromOneThread_completeOneAfterAnotherInOrderWithoutThreadPerWaiter()
      throws Exception {
    String path = "/contention/async-thousand";
    int waiters = 1_000;
    Mutex mutex = baton().mutex(path);
    MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
    ConcurrentLinkedQueue<Integer> completionOrder = new ConcurrentLinkedQueue<>();
    AtomicInteger failures = new AtomicInteger();
    ThreadMXBean threadBean = ManagementFactory.getThreadMXBean();
    int threadsBefore = threadBean.getThreadCount();
    threadBean.resetPeakThreadCount();

    // The first grant is held until every waiter is queued, so they all really wait.
    Lease gate = mutex.acquire(WAIT);
    List<CompletableFuture<Void>> done = new ArrayList<>();
    for (int i = 0; i < waiters; i++) {
      int index = i;
      done.add(mutex.acquireAsync().thenAccept(lease -> {
        MutualExclusionChecker.Section section = checker.enter("waiter-" + index, lease.fencingToken());
        completionOrder.add(index);
        section.exit();
        lease.close();
      }).whenComplete((ok, error) -> {
        if (error != null) {
          failures.incrementAndGet();
        }
      }));
    }
    awaitChildren(path, waiters + 1);
    assertThat(done).noneMatch(CompletableFuture::isDone);
    gate.close();

    CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    int peak = threadBean.getPeakThreadCount();

    assertThat(failures).hasValue(0);
    checker.assertNoViolations();
    assertThat(checker.sectionCount()).isEqualTo(waiters);
    List<Integer> expectedOrder = new ArrayList<>();
    for (int i = 0; i < waiters; i++) {
      expectedOrder.add(i);
    }
    assertThat(completionOrder).as("grant order = queue order").containsExactlyElementsOf(expectedOrder);
    assertThat(peak - threadsBefore).as("threads added while 1,000 waiters were queued")
        .isLessThan(50);
    awaitNoChildren(path);
  }

  @Test
  void acquire_afterReleasedLockReacquiredRepeatedly_reusesNoNodeAndTokensGrow() throws Exception {
    String path = "/contention/sequential";
    Mutex mutex = baton().mutex(path);
    long last = 0;
    for (int i = 0; i < 50; i++) {
      Optional<Lease> lease = mutex.tryAcquire(WAIT);
      assertThat(lease).as("round " + i).isPresent();
      assertThat(lease.get().fencingToken()).isGreaterThan(last);
      last = lease.get().fencingToken();
      lease.get().close();
    }
    awaitNoChildren(path);
  }
}
