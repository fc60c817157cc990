package dev.baton.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.BatonInterruptedException;
import dev.baton.ClientClosedException;
import dev.baton.ClusterTestSupport;
import dev.baton.ConnectionState;
import dev.baton.FencingTokens;
import dev.baton.testkit.FaultProxy;
import dev.baton.testkit.MutualExclusionChecker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The counting semaphore: its contract under contention, several permits at once, its faults
 * (expiry while waiting for the count, timeouts, a client closed mid-acquire) with no node left
 * under {@code locks/} or {@code leases/}, its cost in requests, and bad input.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SemaphoreTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(20);

  private final ExecutorService threads = Executors.newCachedThreadPool();

  @AfterEach
  void stopThreads() {
    threads.shutdownNow();
  }

  private static void awaitNodes(String path, int locks, int leases) {
    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(raw.children(path + "/locks")).as("nodes under " + path + "/locks").hasSize(locks);
      assertThat(raw.children(path + "/leases")).as("nodes under " + path + "/leases").hasSize(leases);
    });
  }

  // ---- contract -------------------------------------------------------------------------------

  @Test
  void acquire_threeClientsTwoThreadsEach_neverMoreThanThreePermitsHeld_andAllProgress() throws Exception {
    String path = "/semaphore/contract";
    int cycles = 15;
    MutualExclusionChecker checker = MutualExclusionChecker.withCapacity(3);
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger peak = new AtomicInteger();
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> running = new ArrayList<>();
    for (int c = 0; c < 3; c++) {
      Semaphore shared = baton().semaphore(path, 3);
      for (int t = 0; t < 2; t++) {
        String who = "client-" + c + "/thread-" + t;
        running.add(threads.submit(() -> {
          start.await();
          for (int i = 0; i < cycles; i++) {
            try (Lease lease = shared.acquire(WAIT)) {
              MutualExclusionChecker.Section section = checker.enter(who, lease.fencingToken());
              peak.accumulateAndGet(inside.incrementAndGet(), Math::max);
              Thread.yield();
              inside.decrementAndGet();
              section.exit();
            }
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
    assertThat(checker.sectionsByClient()).hasSize(6).allSatisfy((who, n) -> assertThat(n).as(who).isEqualTo(cycles));
    assertThat(peak.get()).isBetween(1, 3);
    awaitNodes(path, 0, 0);
  }

  @Test
  void acquire_whenAllPermitsHeld_fourthWaitsUntilOneIsReleased() throws Exception {
    String path = "/semaphore/fourth-waits";
    List<Lease> held = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      held.add(baton().semaphore(path, 3).acquire(WAIT));
    }
    Semaphore fourth = baton().semaphore(path, 3);
    assertThat(fourth.tryAcquire(Duration.ZERO)).isEmpty();
    assertThat(fourth.tryAcquire(Duration.ofMillis(100))).isEmpty();
    assertThat(fourth.holders()).hasSize(3).extracting(LockOwner::fencingToken)
        .containsExactly(held.stream().map(Lease::fencingToken).toArray(Long[]::new));
    awaitNodes(path, 0, 3);

    CompletableFuture<Lease> waiting = fourth.acquireAsync();
    awaitNodes(path, 1, 4); // it holds the locks mutex and its lease node waits for the count
    assertThat(waiting).isNotDone();
    held.get(1).close();
    Lease lease = waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(lease.isValid()).isTrue();
    assertThat(lease.fencingToken()).isGreaterThan(held.get(2).fencingToken());
    awaitNodes(path, 0, 3);
    lease.close();
    held.forEach(Lease::close);
    awaitNodes(path, 0, 0);
  }

  @Test
  void acquireSeveral_timesOut_givesBackEveryNode_thenGetsAllOnceFree() throws Exception {
    String path = "/semaphore/several";
    Semaphore semaphore = baton().semaphore(path, 3);
    Lease two = semaphore.acquire(2, WAIT);
    assertThat(semaphore.holders()).hasSize(2);

    Semaphore other = baton().semaphore(path, 3);
    assertThatThrownBy(() -> other.acquire(2, Duration.ofMillis(300)))
        .isInstanceOf(AcquireTimeoutException.class).hasMessageContaining(path);
    awaitNodes(path, 0, 2); // nothing of the timed-out request is left

    CompletableFuture<Lease> pending = CompletableFuture.supplyAsync(() -> other.acquire(2, WAIT), threads);
    awaitNodes(path, 1, 4);
    two.close();
    Lease both = pending.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(both.isValid()).isTrue();
    assertThat(other.holders()).hasSize(2);
    assertThat(semaphore.tryAcquire(2, Duration.ZERO)).isEmpty();
    try (Lease third = semaphore.acquire(Duration.ofSeconds(5))) {
      assertThat(other.holders()).hasSize(3);
    }
    both.close();
    assertThat(both.state()).isEqualTo(LeaseState.RELEASED);
    awaitNodes(path, 0, 0);
  }

  @Test
  void lease_closedFromAnotherThread_releasesThePermit() throws Exception {
    String path = "/semaphore/other-thread";
    Semaphore semaphore = baton().semaphore(path, 1);
    Lease lease = semaphore.acquire(WAIT);
    threads.submit(lease::close).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(lease.state()).isEqualTo(LeaseState.RELEASED);
    try (Lease next = baton().semaphore(path, 1).acquire(WAIT)) {
      assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
    }
    lease.close(); // idempotent
    awaitNodes(path, 0, 0);
  }

  @Test
  void acquireAsync_cancelledWhileWaiting_leavesNoNodes() throws Exception {
    String path = "/semaphore/cancel";
    Lease held = baton().semaphore(path, 1).acquire(WAIT);
    Semaphore semaphore = baton().semaphore(path, 1);
    CompletableFuture<Lease> first = semaphore.acquireAsync();
    CompletableFuture<Lease> second = semaphore.acquireAsync(WAIT);
    awaitNodes(path, 2, 2); // the first waits for the count, the second for the mutex
    first.cancel(true);
    second.cancel(true);
    awaitNodes(path, 0, 1);
    held.close();
    awaitNodes(path, 0, 0);
  }

  // ---- faults ---------------------------------------------------------------------------------

  /**
   * The waiter holds the {@code locks} mutex and its lease node waits for the count when its
   * session expires: both nodes go with the session. It must start over on the new session and
   * get the permit once a holder leaves.
   */
  @Test
  void expiryWhileWaitingForCount_startsOverOnNewSession_andAcquires() throws Exception {
    String path = "/semaphore/expiry-waiting";
    Lease held = baton().semaphore(path, 1).acquire(WAIT);
    FaultProxy proxy = closing(FaultProxy.start(cluster.address(0)));
    Baton waiterClient = baton(proxy.connectString(), Duration.ofSeconds(1));
    long oldSession = waiterClient.sessionId();
    CompletableFuture<Lease> waiting = waiterClient.semaphore(path, 1).acquireAsync();
    awaitNodes(path, 1, 2);

    proxy.blackhole();
    awaitNodes(path, 0, 1); // the session ended on the server
    proxy.restore();
    await().atMost(WAIT).until(() -> waiterClient.sessionId() != oldSession);
    awaitNodes(path, 1, 2);
    assertThat(waiting).isNotDone();

    held.close();
    Lease lease = waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(lease.isValid()).isTrue();
    assertThat(lease.fencingToken()).isGreaterThan(held.fencingToken());
    assertThat(baton().semaphore(path, 1).holders()).singleElement()
        .satisfies(owner -> assertThat(owner.sessionId()).isEqualTo(waiterClient.sessionId()));
    lease.close();
    awaitNodes(path, 0, 0);
  }

  /**
   * The lease node's create reaches the server but its reply is lost with the connection: the
   * waiter must find its node again by the UUID in its name instead of creating a second one (a
   * leaked node of the live session would take a permit for as long as the session lives).
   */
  @Test
  void cutAfterLeaseCreate_beforeReply_findsItsNodeInsteadOfLeakingIt() throws Exception {
    String path = "/semaphore/cut-after-create";
    FaultProxy proxy = closing(FaultProxy.start(cluster.address(0)));
    Baton client = baton(proxy.connectString(), Duration.ofSeconds(20));
    List<ConnectionState> states = new java.util.concurrent.CopyOnWriteArrayList<>();
    client.addConnectionStateListener(states::add);
    proxy.delay(Duration.ofMillis(400));
    CompletableFuture<Lease> pending = client.semaphore(path, 2).acquireAsync();
    await().atMost(WAIT).until(() -> raw.children(path + "/leases").size() == 1);
    proxy.cut(); // the create's reply is still in the proxy's delay line: it is dropped
    assertThat(pending).isNotDone();
    await().atMost(WAIT).until(() -> states.contains(ConnectionState.SUSPENDED));
    proxy.restore();
    proxy.delay(Duration.ZERO);

    Lease lease = pending.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    List<String> leases = raw.children(path + "/leases");
    assertThat(leases).singleElement().asString().endsWith("lease-0000000000");
    assertThat(lease.fencingToken()).isEqualTo(FencingTokens.ofNode(raw.czxid(path + "/leases/" + leases.get(0))));
    lease.close();
    awaitNodes(path, 0, 0);
  }

  @Test
  void acquire_interruptedWhileWaiting_throwsAndRemovesItsNodes() throws Exception {
    String path = "/semaphore/interrupted";
    Lease held = baton().semaphore(path, 1).acquire(WAIT);
    Semaphore semaphore = baton().semaphore(path, 1);
    CompletableFuture<Thread> waiterThread = new CompletableFuture<>();
    Future<Throwable> outcome = threads.submit(() -> {
      waiterThread.complete(Thread.currentThread());
      try {
        semaphore.acquire().close();
        return null;
      } catch (RuntimeException e) {
        return e;
      }
    });
    awaitNodes(path, 1, 2);
    waiterThread.get().interrupt();
    assertThat(outcome.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(BatonInterruptedException.class)
        .hasMessageContaining(path);
    awaitNodes(path, 0, 1);
    held.close();
    awaitNodes(path, 0, 0);
  }

  @Test
  void timedOutWaiters_leaveNoNodeUnderLocksOrLeases() throws Exception {
    String path = "/semaphore/timeouts";
    Lease held = baton().semaphore(path, 1).acquire(WAIT);
    Semaphore semaphore = baton().semaphore(path, 1);
    CompletableFuture<Lease> behindMutex = semaphore.acquireAsync(Duration.ofMillis(600));
    assertThat(semaphore.tryAcquire(Duration.ofMillis(300))).isEmpty();
    ExecutionException timedOut = org.junit.jupiter.api.Assertions.assertThrows(
        ExecutionException.class, () -> behindMutex.get(WAIT.toSeconds(), TimeUnit.SECONDS));
    assertThat(timedOut).hasCauseInstanceOf(AcquireTimeoutException.class);
    awaitNodes(path, 0, 1);
    assertThat(raw.children(path + "/leases")).singleElement().asString().endsWith("lease-0000000000");
    held.close();
    awaitNodes(path, 0, 0);
  }

  @Test
  void clientClosedMidAcquire_leavesNoLease_andTheNextWaiterGetsThePermit() throws Exception {
    String path = "/semaphore/client-dies";
    Lease held = baton().semaphore(path, 1).acquire(WAIT);
    Baton dying = baton();
    CompletableFuture<Lease> dyingWaiter = dying.semaphore(path, 1).acquireAsync();
    CompletableFuture<Lease> survivor = baton().semaphore(path, 1).acquireAsync();
    awaitNodes(path, 2, 2);

    dying.close();
    assertThatThrownBy(() -> dyingWaiter.get(WAIT.toSeconds(), TimeUnit.SECONDS))
        .hasCauseInstanceOf(ClientClosedException.class);
    awaitNodes(path, 1, 2); // the survivor now holds the mutex and waits for the count
    held.close();
    try (Lease lease = survivor.get(WAIT.toSeconds(), TimeUnit.SECONDS)) {
      assertThat(lease.isValid()).isTrue();
    }
    awaitNodes(path, 0, 0);
  }

  // ---- cost -----------------------------------------------------------------------------------

  /**
   * An uncontended acquire+release sends six requests, in two waited round trips: the mutex's
   * create and listing together, then the lease's create and listing together; the mutex's and
   * the lease's deletes are not waited for. Curator sends seven, one round trip each (see
   * {@code SemaphoreCuratorInteropTest}). No children watch is set, so none is left behind.
   */
  @Test
  void uncontendedCycle_sendsSixRequests_andLeavesNoWatch() {
    int cycles = 300;
    try (Baton baton = Baton.builder().connectString(cluster.connectString())
        .sessionTimeout(Duration.ofSeconds(30)).build()) {
      Semaphore semaphore = baton.semaphore("/semaphore/count", 3);
      semaphore.acquire().close(); // creates the container parents once
      semaphore.holders(); // answered after the deletes sent before it
      long before = cluster.packetsReceived(0);
      for (int i = 0; i < cycles; i++) {
        semaphore.acquire().close();
      }
      semaphore.holders();
      long perCycle100 = (cluster.packetsReceived(0) - before - 1 - cluster.packetReadingCost(0)) * 100 / cycles;
      assertThat(perCycle100).as("requests per cycle x100").isBetween(598L, 602L);
      assertThat(cluster.metrics(0).get("zk_watch_count")).isEqualTo("0");
    }
  }

  // ---- bad input ------------------------------------------------------------------------------

  @Test
  void badInput_isRejectedNamingTheArgument_andWritesNothing() throws Exception {
    Baton baton = baton();
    Set<String> before = raw.tree();
    assertThatThrownBy(() -> baton.semaphore("/semaphore/bad", 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("permits").hasMessageContaining("0");
    assertThatThrownBy(() -> baton.semaphore("/semaphore/bad", -2))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("permits").hasMessageContaining("-2");
    assertThatThrownBy(() -> baton.semaphore("relative", 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("semaphore path 'relative'");
    assertThatThrownBy(() -> baton.semaphore("/", 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("semaphore path '/'");
    assertThatThrownBy(() -> baton.semaphore(null, 1))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("semaphore path");
    assertThatThrownBy(() -> baton.semaphoreMutex("/a//b"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("semaphore mutex path");

    Semaphore semaphore = baton.semaphore("/semaphore/bad", 3);
    assertThatThrownBy(() -> semaphore.acquire(0, WAIT))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("permits must be between 1 and 3");
    assertThatThrownBy(() -> semaphore.acquire(4, WAIT))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was 4");
    assertThatThrownBy(() -> semaphore.tryAcquire(-1, WAIT))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was -1");
    assertThatThrownBy(() -> semaphore.acquire(null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("timeout");
    assertThatThrownBy(() -> semaphore.tryAcquire(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout must not be negative");
    assertThatThrownBy(() -> semaphore.acquireAsync(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout");
    assertThatThrownBy(() -> semaphore.acquire(2, null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("timeout");
    assertThatThrownBy(() -> baton.semaphoreMutex("/semaphore/bad-mutex").tryAcquire(Duration.ofNanos(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout");
    assertThat(raw.tree()).as("nodes on the server").isSubsetOf(before);

    baton.close();
    assertThatThrownBy(semaphore::acquire).isInstanceOf(ClientClosedException.class);
    assertThatThrownBy(() -> baton.semaphore("/semaphore/bad", 1)).isInstanceOf(ClientClosedException.class);
  }

  @Test
  void tryAcquireZero_onFreePermit_succeedsAtOnce() {
    Semaphore semaphore = baton().semaphore("/semaphore/try-zero", 2);
    Optional<Lease> lease = semaphore.tryAcquire(Duration.ZERO);
    assertThat(lease).hasValueSatisfying(l -> assertThat(l.isValid()).isTrue());
    lease.orElseThrow().close();
    awaitNodes("/semaphore/try-zero", 0, 0);
  }
}
