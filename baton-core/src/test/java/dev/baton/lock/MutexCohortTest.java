package dev.baton.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.ClusterTestSupport;
import dev.baton.testkit.FaultProxy;
import dev.baton.testkit.MutualExclusionChecker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;

/**
 * Local hand-over (lock cohorting, {@link MutexOptions#withLocalHandOver}): threads of one client
 * share one lock node, and the lock passes between them without a request, within a bound that
 * keeps other clients' waiters from starving. Exclusion, growing tokens and loss notices hold
 * as in the default mode, with Curator clients on the same path too.
 */
class MutexCohortTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final MutexOptions COHORTED = MutexOptions.defaults().withLocalHandOver(4);

  @Test
  void threadsOfOneClient_shareOneNode_andGetGrowingTokens() throws Exception {
    String path = "/cohort/one-node";
    Mutex mutex = baton().mutex(path, COHORTED);
    Lease first = mutex.acquire(WAIT);
    List<CompletableFuture<Lease>> waiting = new ArrayList<>();
    ExecutorService threads = pool(3);
    for (int i = 0; i < 3; i++) {
      waiting.add(CompletableFuture.supplyAsync(() -> mutex.acquire(WAIT), threads));
    }
    // The waiting threads queue inside the client: one node stands for all four.
    await().atMost(WAIT).untilAsserted(() -> assertThat(raw.children(path)).hasSize(1));
    String node = raw.children(path).get(0);
    long previous = first.fencingToken();
    first.close();
    assertThat(first.isValid()).isFalse();
    for (int passed = 0; passed < 3; passed++) {
      Lease next = await().atMost(WAIT).until(() -> heldOne(waiting), Optional::isPresent).orElseThrow();
      assertThat(next.fencingToken()).isGreaterThan(previous);
      assertThat(raw.children(path)).containsExactly(node);
      previous = next.fencingToken();
      waiting.removeIf(f -> f.isDone() && f.join() == next);
      next.close();
    }
    awaitChildren(path, 0);
  }

  private static Optional<Lease> heldOne(List<CompletableFuture<Lease>> waiting) {
    return waiting.stream().filter(CompletableFuture::isDone).map(CompletableFuture::join)
        .filter(Lease::isValid).findFirst();
  }

  @Test
  void contention_acrossCohortedDefaultAndCuratorClients_keepsExclusionAndTokenOrder() throws Exception {
    String path = "/cohort/mixed";
    MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
    int sectionsPerThread = 40;
    List<Future<?>> done = new ArrayList<>();
    ExecutorService threads = pool(12);
    for (int client = 0; client < 2; client++) {
      Mutex cohorted = baton().mutex(path, COHORTED);
      String name = "cohorted-" + client;
      for (int t = 0; t < 4; t++) {
        done.add(threads.submit(() -> loop(checker, name, cohorted, sectionsPerThread)));
      }
    }
    Mutex plain = baton().mutex(path);
    for (int t = 0; t < 2; t++) {
      done.add(threads.submit(() -> loop(checker, "default", plain, sectionsPerThread)));
    }
    CuratorFramework curator = closing(CuratorFrameworkFactory.newClient(cluster.connectString(), new RetryOneTime(100)));
    curator.start();
    for (int t = 0; t < 2; t++) {
      HelperCuratorMutex curatorMutex = new HelperCuratorMutex(curator, path);
      done.add(threads.submit(() -> {
        for (int i = 0; i < sectionsPerThread; i++) {
          curatorMutex.acquire();
          try (MutualExclusionChecker.Section s = checker.enter("curator", curatorMutex.ownFencingToken())) {
            Thread.onSpinWait();
          } finally {
            curatorMutex.release();
          }
        }
        return null;
      }));
    }
    for (Future<?> f : done) {
      f.get(2, TimeUnit.MINUTES);
    }
    checker.assertNoViolations();
    assertThat(checker.sectionCount()).isEqualTo(12L * sectionsPerThread);
    awaitChildren(path, 0);
  }

  private static Void loop(MutualExclusionChecker checker, String client, Mutex mutex, int sections) {
    for (int i = 0; i < sections; i++) {
      try (Lease lease = mutex.acquire(WAIT);
          MutualExclusionChecker.Section s = checker.enter(client, lease.fencingToken())) {
        Thread.onSpinWait();
      }
    }
    return null;
  }

  /**
   * A client whose four threads want the lock without pause must still let another client's
   * waiter in: after at most {@code localHandOvers} local hand-overs the node is given up.
   */
  @Test
  void otherClientsWaiter_waitsAtMostTheBoundOfLocalHandOvers() throws Exception {
    String path = "/cohort/fair";
    Mutex busy = baton().mutex(path, COHORTED);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger grants = new AtomicInteger();
    ExecutorService threads = pool(4);
    CountDownLatch running = new CountDownLatch(1);
    List<Future<?>> loops = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      loops.add(threads.submit(() -> {
        while (!stop.get()) {
          try (Lease lease = busy.acquire(WAIT)) {
            grants.incrementAndGet();
            running.countDown();
          }
        }
        return null;
      }));
    }
    assertThat(running.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    Mutex other = baton().mutex(path);
    List<Integer> grantsWhenQueued = new CopyOnWriteArrayList<>();
    CompletableFuture<Lease> waiting = other.acquireAsync();
    // Once the other client's node is in the queue, count the busy client's grants until it is served.
    await().atMost(WAIT).until(() -> raw.children(path).size() >= 2);
    grantsWhenQueued.add(grants.get());
    Lease otherLease = waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    int localGrantsInBetween = grants.get() - grantsWhenQueued.get(0);
    otherLease.close();
    stop.set(true);
    for (Future<?> loop : loops) {
      loop.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }
    // The holder at the moment of queueing, then at most 4 hand-overs in a row.
    assertThat(localGrantsInBetween).isLessThanOrEqualTo(1 + COHORTED.localHandOvers());
    awaitChildren(path, 0);
  }

  @Test
  void timedOutLocalWaiter_leavesNoNode_andTryWithoutWaitingFindsItsOwnClientAhead() throws Exception {
    String path = "/cohort/timeout";
    Mutex mutex = baton().mutex(path, COHORTED);
    Lease held = mutex.acquire(WAIT);
    ExecutorService threads = pool(1);
    assertThat(threads.submit(() -> mutex.tryAcquire(Duration.ZERO)).get()).isEmpty();
    assertThat(threads.submit(() -> mutex.tryAcquire(Duration.ofMillis(100))).get()).isEmpty();
    assertThat(raw.children(path)).hasSize(1);
    held.close();
    awaitChildren(path, 0);
    // Idle again: a timed waiter that queued alone withdraws its node when it gives up.
    Lease blocker = baton().mutex(path).acquire(WAIT);
    assertThat(mutex.tryAcquire(Duration.ofMillis(200))).isEmpty();
    awaitChildren(path, 1);
    blocker.close();
    awaitChildren(path, 0);
  }

  @Test
  void sessionLostWhileHolding_holderTold_localWaiterGetsAFreshNodeAndLargerToken() throws Exception {
    String path = "/cohort/expiry";
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0))) {
      Baton client = baton(proxy.connectString(), Duration.ofSeconds(1));
      Mutex mutex = client.mutex(path, COHORTED);
      Lease first = mutex.acquire(WAIT);
      List<LeaseState> told = new CopyOnWriteArrayList<>();
      first.addListener((lease, state) -> told.add(state), Runnable::run);
      String firstNode = raw.children(path).get(0);
      CompletableFuture<Lease> waiting = CompletableFuture.supplyAsync(() -> mutex.acquire(WAIT), pool(1));
      proxy.blackhole();
      await().atMost(WAIT).until(() -> told.contains(LeaseState.LOST));
      proxy.restore();
      // The local waiter does not wait for the lost holder to close its lease.
      Lease second = waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(first.isValid()).isFalse();
      assertThat(second.isValid()).isTrue();
      assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
      assertThat(raw.children(path)).singleElement().isNotEqualTo(firstNode);
      first.close();
      assertThat(second.isValid()).isTrue();
      second.close();
    }
    awaitChildren(path, 0);
  }

  @Test
  void asyncWaiters_shareTheNode_andCancellingOneLeavesTheOthersQueued() throws Exception {
    String path = "/cohort/async";
    Mutex mutex = baton().mutex(path, COHORTED);
    Lease held = baton().mutex(path).acquire(WAIT);
    List<CompletableFuture<Lease>> waiting = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      waiting.add(mutex.acquireAsync());
    }
    await().atMost(WAIT).untilAsserted(() -> assertThat(raw.children(path)).hasSize(2));
    waiting.get(0).cancel(true);
    held.close();
    for (CompletableFuture<Lease> f : waiting.subList(1, waiting.size())) {
      f.get(WAIT.toSeconds(), TimeUnit.SECONDS).close();
    }
    awaitChildren(path, 0);
  }
}
