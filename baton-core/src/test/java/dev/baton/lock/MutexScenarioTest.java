package dev.baton.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.BatonInterruptedException;
import dev.baton.ClientClosedException;
import dev.baton.ClusterTestSupport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Our users' classic lock experiments, scaled down: timeouts, order numbers, cancellation. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class MutexScenarioTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(30);

  private static boolean waitFor(CountDownLatch latch) throws InterruptedException {
    return latch.await(30, TimeUnit.SECONDS);
  }

  // ---- timeouts -------------------------------------------------------------------------------

  /**
   * Five threads on five clients race for the lock with a short timeout; whoever gets it works
   * until the other four have timed out. Exactly one succeeds.
   */
  @Test
  void acquireWithTimeout_holderOutlastsOthersTimeouts_oneSucceedsFourTimeOutAndTheirNodesGo()
      throws Exception {
    String path = "/scenario/timeout-race";
    Duration timeout = Duration.ofSeconds(1);
    int contenders = 5;
    CountDownLatch start = new CountDownLatch(1);
    CountDownLatch timedOut = new CountDownLatch(contenders - 1);
    CountDownLatch holderChecked = new CountDownLatch(1);
    List<AcquireTimeoutException> timeouts = new ArrayList<>();
    AtomicInteger successes = new AtomicInteger();
    ExecutorService pool = pool(contenders);
    List<Future<?>> running = new ArrayList<>();
    for (int i = 0; i < contenders; i++) {
      Mutex mutex = baton().mutex(path);
      running.add(pool.submit(() -> {
        waitFor(start);
        Lease lease;
        try {
          lease = mutex.acquire(timeout);
        } catch (AcquireTimeoutException e) {
          synchronized (timeouts) {
            timeouts.add(e);
          }
          timedOut.countDown();
          return null;
        }
        try (lease) {
          successes.incrementAndGet();
          // Work until every other contender has given up, and the test has looked at the nodes.
          assertThat(waitFor(timedOut)).as("the others timed out while this one held").isTrue();
          assertThat(waitFor(holderChecked)).isTrue();
        }
        return null;
      }));
    }
    start.countDown();
    assertThat(waitFor(timedOut)).isTrue();
    // While the lock is still held, only the holder's node is left.
    awaitChildren(path, 1);
    holderChecked.countDown();
    for (Future<?> f : running) {
      f.get(30, TimeUnit.SECONDS);
    }

    assertThat(successes).hasValue(1);
    assertThat(timeouts).hasSize(contenders - 1).allSatisfy(e -> {
      assertThat(e.path()).isEqualTo(path);
      assertThat(e.timeout()).isEqualTo(timeout);
      assertThat(e.getMessage()).contains(path);
    });
    awaitChildren(path, 0);
  }

  /**
   * Behind a held lock, three waiters with a short timeout and two with a long one: the short
   * ones time out and leave, the long ones get the lock once it is released.
   */
  @Test
  void acquireWithTimeout_mixedTimeoutsBehindHolder_shortOnesTimeOutLongOnesGetItInTurn()
      throws Exception {
    String path = "/scenario/mixed-timeouts";
    Lease gate = baton().mutex(path).acquire(WAIT);
    CountDownLatch shortTimedOut = new CountDownLatch(3);
    AtomicInteger successes = new AtomicInteger();
    AtomicInteger failures = new AtomicInteger();
    ConcurrentLinkedQueue<Long> tokens = new ConcurrentLinkedQueue<>();
    ExecutorService pool = pool(5);
    List<Future<?>> running = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      boolean shortWait = i < 3;
      Mutex mutex = baton().mutex(path);
      running.add(pool.submit(() -> {
        try (Lease lease = mutex.acquire(shortWait ? Duration.ofMillis(200) : WAIT)) {
          successes.incrementAndGet();
          tokens.add(lease.fencingToken());
        } catch (AcquireTimeoutException e) {
          failures.incrementAndGet();
          if (shortWait) {
            shortTimedOut.countDown();
          }
        }
        return null;
      }));
    }
    assertThat(waitFor(shortTimedOut)).isTrue();
    awaitChildren(path, 3); // the gate and the two long waiters

    gate.close();
    for (Future<?> f : running) {
      f.get(30, TimeUnit.SECONDS);
    }
    assertThat(successes).hasValue(2);
    assertThat(failures).hasValue(3);
    assertThat(tokens).allSatisfy(token -> assertThat(token).isGreaterThan(gate.fencingToken()));
    awaitChildren(path, 0);
  }

  @Test
  void tryAcquire_withTimeoutOnHeldLock_returnsEmptyAndRemovesItsNode() throws Exception {
    String path = "/scenario/try-timeout";
    Lease held = baton().mutex(path).acquire(WAIT);
    Mutex other = baton().mutex(path);

    assertThat(other.tryAcquire(Duration.ofMillis(200))).isEmpty();

    awaitChildren(path, 1);
    held.close();
    try (Lease lease = other.tryAcquire(WAIT).orElseThrow()) {
      assertThat(lease.fencingToken()).isGreaterThan(held.fencingToken());
    }
    awaitChildren(path, 0);
  }

  // ---- order numbers --------------------------------------------------------------------------

  /** The plain field a critical section reads, increments and writes back. */
  private static final class OrderBook {
    int lastOrderNumber;
  }

  @Test
  void acquire_thirtyThreadsReleasedAtOnceGeneratingOrderNumbers_allNumbersDistinct() throws Exception {
    String path = "/scenario/order-numbers";
    int clients = 3;
    int threadsPerClient = 10;
    int ordersPerThread = 3;
    OrderBook book = new OrderBook();
    ConcurrentLinkedQueue<Integer> issued = new ConcurrentLinkedQueue<>();
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = pool(clients * threadsPerClient);
    List<Future<?>> running = new ArrayList<>();
    for (int c = 0; c < clients; c++) {
      Mutex mutex = baton().mutex(path);
      for (int t = 0; t < threadsPerClient; t++) {
        running.add(pool.submit(() -> {
          waitFor(start);
          for (int i = 0; i < ordersPerThread; i++) {
            try (Lease lease = mutex.acquire(WAIT)) {
              assertThat(lease.isValid()).isTrue();
              int number = book.lastOrderNumber + 1; // read
              Thread.yield(); // let any other "holder" interleave here
              book.lastOrderNumber = number; // write
              issued.add(number);
            }
          }
          return null;
        }));
      }
    }
    start.countDown();
    for (Future<?> f : running) {
      f.get(60, TimeUnit.SECONDS);
    }

    int total = clients * threadsPerClient * ordersPerThread;
    assertThat(issued).hasSize(total).doesNotHaveDuplicates();
    assertThat(new TreeSet<>(issued)).isEqualTo(
        IntStream.rangeClosed(1, total).boxed().collect(Collectors.toCollection(TreeSet::new)));
    awaitChildren(path, 0);
  }

  // ---- asynchronous waiters -------------------------------------------------------------------

  @Test
  void acquireAsync_cancelledWhileQueued_removesItsNodeAndNeverGetsTheLock() throws Exception {
    String path = "/scenario/cancel-queued";
    Lease held = baton().mutex(path).acquire(WAIT);
    Mutex waiterMutex = baton().mutex(path);
    CompletableFuture<Lease> waiting = waiterMutex.acquireAsync();
    awaitChildren(path, 2);
    assertThat(waiterMutex.waiters()).hasSize(1);

    assertThat(waiting.cancel(true)).isTrue();

    assertThat(waiting).isCancelled();
    awaitChildren(path, 1);
    assertThat(waiterMutex.waiters()).isEmpty();
    held.close();
    awaitChildren(path, 0);
    // The lock is free for anyone, including the client whose waiter was cancelled.
    try (Lease lease = waiterMutex.tryAcquire(Duration.ZERO).orElseThrow()) {
      assertThat(lease.isValid()).isTrue();
    }
    awaitChildren(path, 0);
  }

  @Test
  void acquireAsync_cancelledRightAway_repeatedlyOnFreeAndHeldLock_leavesNoNodeAndNoHolder()
      throws Exception {
    String path = "/scenario/cancel-racing";
    Mutex mutex = baton().mutex(path);
    Mutex other = baton().mutex(path);
    // On a free lock the grant races the cancellation; on a held one the create does.
    for (int i = 0; i < 40; i++) {
      mutex.acquireAsync().cancel(true);
    }
    Lease held = other.acquire(WAIT);
    for (int i = 0; i < 40; i++) {
      mutex.acquireAsync().cancel(true);
    }
    awaitChildren(path, 1);
    held.close();
    awaitChildren(path, 0);
    try (Lease lease = other.acquire(WAIT)) {
      assertThat(lease.fencingToken()).isGreaterThan(held.fencingToken());
    }
    awaitChildren(path, 0);
  }

  @Test
  void acquireAsync_withTimeoutOnHeldLock_failsWithAcquireTimeoutAndRemovesItsNode() throws Exception {
    String path = "/scenario/async-timeout";
    Lease held = baton().mutex(path).acquire(WAIT);
    Mutex other = baton().mutex(path);

    CompletableFuture<Lease> waiting = other.acquireAsync(Duration.ofMillis(200));

    assertThatThrownBy(() -> waiting.get(30, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(AcquireTimeoutException.class).hasMessageContaining(path);
    awaitChildren(path, 1);
    held.close();
    awaitChildren(path, 0);
  }

  // ---- try once -------------------------------------------------------------------------------

  @Test
  void tryAcquire_zeroOnFreeLock_succeeds() throws Exception {
    String path = "/scenario/try-zero-free";
    Mutex mutex = baton().mutex(path);
    Optional<Lease> lease = mutex.tryAcquire(Duration.ZERO);
    assertThat(lease).isPresent();
    assertThat(lease.get().isValid()).isTrue();
    assertThat(mutex.holder()).map(LockOwner::fencingToken).contains(lease.get().fencingToken());
    lease.get().close();
    awaitChildren(path, 0);
  }

  @Test
  void tryAcquire_zeroOnHeldLock_returnsEmptyWithoutNode() throws Exception {
    String path = "/scenario/try-zero-held";
    Mutex holderMutex = baton().mutex(path);
    Lease held = holderMutex.acquire(WAIT);
    String holderNode = raw.children(path).get(0);
    Baton tryer = baton();
    Mutex mutex = tryer.mutex(path);

    for (int i = 0; i < 10; i++) {
      assertThat(mutex.tryAcquire(Duration.ZERO)).as("attempt " + i).isEmpty();
    }

    awaitChildren(path, 1);
    assertThat(raw.children(path)).containsExactly(holderNode);
    // A try-once never waits, so it leaves no watch on the server either.
    Set<String> watchedByTryer = cluster.watchesBySession(0).getOrDefault(tryer.sessionId(), Set.of());
    assertThat(watchedByTryer).isEmpty();
    held.close();
    awaitChildren(path, 0);
  }

  @Test
  void acquire_zeroTimeoutOnHeldLock_throwsAcquireTimeoutAndLeavesNoNode() throws Exception {
    String path = "/scenario/acquire-zero-held";
    Lease held = baton().mutex(path).acquire(WAIT);
    Mutex other = baton().mutex(path);

    assertThatThrownBy(() -> other.acquire(Duration.ZERO))
        .isInstanceOf(AcquireTimeoutException.class)
        .hasMessageContaining(path);

    awaitChildren(path, 1);
    held.close();
    // The release's delete is not waited for: another client sees the lock free a moment later.
    awaitChildren(path, 0);
    try (Lease lease = other.acquire(Duration.ZERO)) {
      assertThat(lease.isValid()).as("acquire(ZERO) on the free lock").isTrue();
    }
    awaitChildren(path, 0);
  }

  @Test
  void acquireAsync_zeroTimeoutOnHeldLock_failsWithAcquireTimeoutAndLeavesNoNode() throws Exception {
    String path = "/scenario/async-zero-held";
    Lease held = baton().mutex(path).acquire(WAIT);
    Mutex other = baton().mutex(path);

    CompletableFuture<Lease> attempt = other.acquireAsync(Duration.ZERO);

    assertThatThrownBy(() -> attempt.get(30, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(AcquireTimeoutException.class).hasMessageContaining(path);
    awaitChildren(path, 1);
    held.close();
    // The release's delete is not waited for: another client sees the lock free a moment later.
    awaitChildren(path, 0);
    try (Lease lease = other.acquireAsync(Duration.ZERO).get(30, TimeUnit.SECONDS)) {
      assertThat(lease.isValid()).as("acquireAsync(ZERO) on the free lock").isTrue();
    }
    awaitChildren(path, 0);
  }

  @Test
  void tryAcquire_zeroWhileCurrentThreadHolds_reentersWithSameToken() throws Exception {
    String path = "/scenario/try-zero-reentrant";
    Mutex mutex = baton().mutex(path);
    Lease outer = mutex.acquire(WAIT);
    Lease inner = mutex.tryAcquire(Duration.ZERO).orElseThrow();
    assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
    assertThat(raw.children(path)).hasSize(1);
    inner.close();
    outer.close();
    awaitChildren(path, 0);
  }

  // ---- interruption ---------------------------------------------------------------------------

  @Test
  void acquire_interruptedWhileWaiting_throwsBatonInterruptedKeepsFlagAndRemovesNode()
      throws Exception {
    String path = "/scenario/interrupt";
    Lease held = baton().mutex(path).acquire(WAIT);
    Mutex waiterMutex = baton().mutex(path);
    ExecutorService pool = pool(1);
    CompletableFuture<Thread> waiterThread = new CompletableFuture<>();
    Future<Throwable> outcome = pool.submit(() -> {
      waiterThread.complete(Thread.currentThread());
      try {
        Lease lease = waiterMutex.acquire(WAIT);
        lease.close();
        return null;
      } catch (BatonInterruptedException e) {
        return Thread.currentThread().isInterrupted() ? e : new AssertionError("interrupt flag cleared", e);
      }
    });
    awaitChildren(path, 2);

    waiterThread.get(10, TimeUnit.SECONDS).interrupt();

    assertThat(outcome.get(30, TimeUnit.SECONDS))
        .isInstanceOf(BatonInterruptedException.class).hasMessageContaining(path);
    awaitChildren(path, 1);
    held.close();
    awaitChildren(path, 0);
  }

  @Test
  void acquire_threadAlreadyInterrupted_throwsBatonInterruptedKeepsFlagAndLeavesNoNode()
      throws Exception {
    String path = "/scenario/interrupted-before";
    Mutex mutex = baton().mutex(path);
    ExecutorService pool = pool(1);
    Future<String> outcome = pool.submit(() -> {
      Thread.currentThread().interrupt();
      try (Lease lease = mutex.acquire(WAIT)) {
        return "acquired although interrupted (token " + lease.fencingToken() + "), flag "
            + Thread.interrupted();
      } catch (BatonInterruptedException e) {
        return "interrupted, flag " + Thread.interrupted();
      }
    });
    assertThat(outcome.get(30, TimeUnit.SECONDS)).isEqualTo("interrupted, flag true");
    awaitChildren(path, 0);
    try (Lease lease = baton().mutex(path).tryAcquire(Duration.ZERO).orElseThrow()) {
      assertThat(lease.isValid()).isTrue();
    }
  }

  @Test
  void acquire_closedClientWhileWaiting_failsWithClientClosedAndNodeGoes() throws Exception {
    String path = "/scenario/close-while-waiting";
    Lease held = baton().mutex(path).acquire(WAIT);
    Baton waiterClient = baton();
    Mutex waiterMutex = waiterClient.mutex(path);
    ExecutorService pool = pool(1);
    Future<Lease> blocked = pool.submit(() -> waiterMutex.acquire(WAIT));
    CompletableFuture<Lease> async = waiterMutex.acquireAsync();
    awaitChildren(path, 3);

    waiterClient.close();

    assertThatThrownBy(() -> blocked.get(30, TimeUnit.SECONDS))
        .cause().isInstanceOf(ClientClosedException.class);
    assertThatThrownBy(() -> async.get(30, TimeUnit.SECONDS))
        .cause().isInstanceOf(ClientClosedException.class);
    awaitChildren(path, 1);
    held.close();
    awaitChildren(path, 0);
  }

  @Test
  void acquireAsync_futureCancelledAfterGrant_cancelIsRefusedAndLeaseStaysUsable() throws Exception {
    String path = "/scenario/cancel-after-grant";
    Mutex mutex = baton().mutex(path);
    CompletableFuture<Lease> future = mutex.acquireAsync();
    Lease lease = future.get(30, TimeUnit.SECONDS);

    assertThat(future.cancel(true)).isFalse();

    assertThat(lease.isValid()).isTrue();
    assertThat(raw.children(path)).hasSize(1);
    assertThatThrownBy(() -> mutex.acquireAsync(Duration.ofMillis(100)).get(30, TimeUnit.SECONDS))
        .cause().isInstanceOf(AcquireTimeoutException.class);
    lease.close();
    awaitChildren(path, 0);
  }

  @Test
  void acquire_withForeignChildUnderLockPath_ignoresItAndLocksNormally() throws Exception {
    String path = "/scenario/foreign-child";
    raw.zk().create(path, new byte[0], org.apache.zookeeper.ZooDefs.Ids.OPEN_ACL_UNSAFE,
        org.apache.zookeeper.CreateMode.PERSISTENT);
    raw.zk().create(path + "/config", new byte[0], org.apache.zookeeper.ZooDefs.Ids.OPEN_ACL_UNSAFE,
        org.apache.zookeeper.CreateMode.PERSISTENT);
    Mutex mutex = baton().mutex(path);
    Mutex other = baton().mutex(path);

    Lease lease = mutex.acquire(WAIT);
    assertThat(other.tryAcquire(Duration.ZERO)).isEmpty();
    assertThat(mutex.holder()).map(LockOwner::fencingToken).contains(lease.fencingToken());
    lease.close();
    try (Lease next = other.acquire(WAIT)) {
      assertThat(next.isValid()).isTrue();
    }
    awaitChildren(path, 1);
    assertThat(raw.children(path)).containsExactly("config");
    raw.zk().delete(path + "/config", -1);
    raw.zk().delete(path, -1);
  }

  // ---- reading and releasing ------------------------------------------------------------------

  @Test
  void holderAndWaiters_onPathNeverUsed_areEmptyAndWriteNothing() throws Exception {
    String path = "/scenario/never-used";
    Mutex mutex = baton().mutex(path);
    assertThat(mutex.holder()).isEmpty();
    assertThat(mutex.waiters()).isEmpty();
    assertThat(raw.exists(path)).as("reading the queue creates nothing").isFalse();
  }

  @Test
  void tryAcquire_zeroRightAfterOwnClientReleased_succeedsEveryTime() throws Exception {
    String path = "/scenario/release-then-try";
    Baton client = baton();
    Mutex mutex = client.mutex(path);
    Mutex sameClientOtherObject = client.mutex(path);
    long last = 0;
    for (int i = 0; i < 100; i++) {
      // The release's delete goes out on the same session before the next create, so the
      // released node can never stand in the way of this client's next try.
      Lease lease = (i % 2 == 0 ? mutex : sameClientOtherObject).tryAcquire(Duration.ZERO)
          .orElseThrow(() -> new AssertionError("free lock refused right after a release"));
      assertThat(lease.fencingToken()).isGreaterThan(last);
      last = lease.fencingToken();
      lease.close();
    }
    awaitChildren(path, 0);
  }

  @Test
  void acquire_withNamespace_sharesTheLockWithAClientWithoutNamespace() throws Exception {
    Baton namespaced = Baton.builder().connectString(cluster.connectString())
        .namespace("/scenario/apps/shop").sessionTimeout(Duration.ofSeconds(10)).build();
    closing(namespaced);
    Mutex plain = baton().mutex("/scenario/apps/shop/locks/sku-42");

    Lease lease = namespaced.mutex("/locks/sku-42").acquire(WAIT);

    assertThat(lease.path()).isEqualTo("/locks/sku-42");
    assertThat(raw.children("/scenario/apps/shop/locks/sku-42")).hasSize(1);
    assertThat(plain.tryAcquire(Duration.ZERO)).isEmpty();
    assertThat(plain.holder()).map(LockOwner::fencingToken).contains(lease.fencingToken());
    assertThatThrownBy(() -> namespaced.mutex("/locks/sku-42").acquireAsync(Duration.ofMillis(100))
            .get(30, TimeUnit.SECONDS))
        .cause().isInstanceOf(AcquireTimeoutException.class).hasMessageContaining("/locks/sku-42");
    lease.close();
    try (Lease theirs = plain.acquire(WAIT)) {
      assertThat(theirs.fencingToken()).isGreaterThan(lease.fencingToken());
    }
    awaitChildren("/scenario/apps/shop/locks/sku-42", 0);
  }
}
