package dev.baton.barrier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.BatonException;
import dev.baton.BatonInterruptedException;
import dev.baton.ClientClosedException;
import dev.baton.ClusterTestSupport;
import dev.baton.ConnectionState;
import dev.baton.testkit.FaultProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The barrier: waiters of several clients (each its own session) released together by one
 * removal, timeouts and cancellation that leave no watch on the server, waiters that ride out a
 * connection cut and a session expiry, the node's shape, what each operation costs, and bad input.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BarrierTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(20);

  /** Sessions watching {@code path} on the server (getData and exists watches). */
  static Set<Long> watchersOf(String path) {
    Set<Long> sessions = new java.util.TreeSet<>();
    cluster.watchesBySession(0).forEach((session, paths) -> {
      if (paths.contains(path)) {
        sessions.add(session);
      }
    });
    return sessions;
  }

  static void awaitWatchers(String path, Long... sessions) {
    await().atMost(WAIT).untilAsserted(
        () -> assertThat(watchersOf(path)).as("sessions watching " + path).containsExactlyInAnyOrder(sessions));
  }

  // ---- contract -------------------------------------------------------------------------------

  @Test
  void remove_releasesEveryWaiterOfEveryClient_blockingAndAsync() throws Exception {
    String path = "/barrier/release-all";
    Barrier coordinator = baton().barrier(path);
    coordinator.set();
    ExecutorService threads = pool(4);
    List<Future<Boolean>> blocked = new ArrayList<>();
    List<Long> sessions = new ArrayList<>();
    List<CompletableFuture<Void>> async = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Baton worker = baton();
      sessions.add(worker.sessionId());
      Barrier barrier = worker.barrier(path);
      blocked.add(threads.submit(() -> {
        barrier.await();
        return !raw.exists(path); // what the waiter sees once released
      }));
      async.add(worker.barrier(path).awaitAsync());
    }
    awaitWatchers(path, sessions.toArray(Long[]::new));
    assertThat(blocked).noneMatch(Future::isDone);
    assertThat(async).noneMatch(CompletableFuture::isDone);
    assertThat(coordinator.isSet()).isTrue();

    coordinator.remove();
    for (Future<Boolean> waiter : blocked) {
      assertThat(waiter.get(WAIT.toSeconds(), TimeUnit.SECONDS)).as("barrier gone when released").isTrue();
    }
    CompletableFuture.allOf(async.toArray(CompletableFuture[]::new)).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(coordinator.isSet()).isFalse();
    assertThat(watchersOf(path)).as("watches left once released").isEmpty();
  }

  @Test
  void await_onBarrierNotSet_returnsAtOnce_andZeroTimeoutOnlyLooks() throws Exception {
    Barrier barrier = baton().barrier("/barrier/not-set");
    barrier.await();
    assertThat(barrier.await(Duration.ofSeconds(5))).isTrue();
    assertThat(barrier.await(Duration.ZERO)).isTrue();
    barrier.awaitAsync().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    barrier.set();
    assertThat(barrier.await(Duration.ZERO)).isFalse();
    barrier.remove();
    assertThat(watchersOf("/barrier/not-set")).isEmpty();
  }

  @Test
  void set_isIdempotent_persistent_withParents_andRemoveIsIdempotent() throws Exception {
    String path = "/barrier/shape/deep/gate";
    Baton owner = baton();
    Barrier barrier = owner.barrier(path);
    barrier.set();
    barrier.set();
    Stat node = raw.zk().exists(path, false);
    assertThat(node.getEphemeralOwner()).as("persistent node").isZero();
    // The parents are made as every recipe's (containers; the server hides that from Stat).
    assertThat(raw.exists("/barrier/shape/deep")).isTrue();

    owner.close(); // the barrier outlives the client that set it
    Barrier other = baton().barrier(path);
    assertThat(other.isSet()).isTrue();
    other.remove();
    other.remove();
    assertThat(raw.exists(path)).isFalse();
    assertThat(other.isSet()).isFalse();
  }

  @Test
  void timedAwait_timesOut_andLeavesNoWatchOnTheServer() throws Exception {
    String path = "/barrier/timeout";
    Barrier setter = baton().barrier(path);
    setter.set();
    Baton waiter = baton();
    assertThat(waiter.barrier(path).await(Duration.ofMillis(200))).isFalse();
    await().atMost(WAIT).until(() -> watchersOf(path).isEmpty());
    assertThat(cluster.watchesBySession(0)).doesNotContainKey(waiter.sessionId());
    assertThat(setter.isSet()).as("a wait changes nothing").isTrue();
    setter.remove();
  }

  /**
   * The server keeps one watch per session and path however many waits share it: a wait that
   * times out must not take the watch from another wait of the same client, and the last one to
   * give up must take it off the server.
   */
  @Test
  void timedOutWait_keepsTheWatchOfAnotherWaitOfTheSameClient() throws Exception {
    String path = "/barrier/shared-watch";
    Barrier setter = baton().barrier(path);
    setter.set();
    Baton waiter = baton();
    CompletableFuture<Void> patient = waiter.barrier(path).awaitAsync();
    awaitWatchers(path, waiter.sessionId());
    assertThat(waiter.barrier(path).await(Duration.ofMillis(100))).isFalse();
    CompletableFuture<Void> cancelled = waiter.barrier(path).awaitAsync();
    cancelled.cancel(false);
    assertThat(waiter.barrier(path).await(Duration.ofMillis(100))).isFalse();
    // Give the removals time to reach the server, then look: the watch must still be there.
    waiter.barrier(path).isSet();
    assertThat(watchersOf(path)).containsExactly(waiter.sessionId());

    setter.remove();
    patient.get(WAIT.toSeconds(), TimeUnit.SECONDS);

    setter.set();
    CompletableFuture<Void> last = waiter.barrier(path).awaitAsync();
    awaitWatchers(path, waiter.sessionId());
    last.cancel(false);
    await().atMost(WAIT).until(() -> watchersOf(path).isEmpty());
    setter.remove();
  }

  @Test
  void manyAsyncWaitersInOneClient_holdNoThreads_shareOneWatch_andAllPass() throws Exception {
    String path = "/barrier/many";
    Barrier setter = baton().barrier(path);
    setter.set();
    Baton waiter = baton();
    int waiters = 2_000;
    int threadsBefore = Thread.activeCount();
    List<CompletableFuture<Void>> waits = new ArrayList<>();
    for (int i = 0; i < waiters; i++) {
      waits.add(waiter.barrier(path).awaitAsync());
    }
    awaitWatchers(path, waiter.sessionId());
    assertThat(Thread.activeCount()).as("threads while waiting").isLessThan(threadsBefore + 10);
    assertThat(cluster.watchesBySession(0).get(waiter.sessionId())).containsExactly(path);
    setter.remove();
    CompletableFuture.allOf(waits.toArray(CompletableFuture[]::new)).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(watchersOf(path)).isEmpty();
  }

  @Test
  void await_interrupted_throws_keepsTheFlag_andRemovesTheWatch() throws Exception {
    String path = "/barrier/interrupt";
    Barrier setter = baton().barrier(path);
    setter.set();
    Baton waiter = baton();
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    CountDownLatch done = new CountDownLatch(1);
    Thread thread = new Thread(() -> {
      try {
        waiter.barrier(path).await();
      } catch (Throwable t) {
        thrown.set(t);
        if (Thread.currentThread().isInterrupted()) {
          done.countDown();
        }
      }
    });
    thread.start();
    awaitWatchers(path, waiter.sessionId());
    thread.interrupt();
    assertThat(done.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("interrupt flag kept").isTrue();
    assertThat(thrown.get()).isInstanceOf(BatonInterruptedException.class).hasMessageContaining(path);
    await().atMost(WAIT).until(() -> watchersOf(path).isEmpty());
    setter.remove();
  }

  @Test
  void clientClosed_failsItsWaiters() throws Exception {
    String path = "/barrier/closed";
    baton().barrier(path).set();
    Baton waiter = baton();
    CompletableFuture<Void> wait = waiter.barrier(path).awaitAsync();
    awaitWatchers(path, waiter.sessionId());
    waiter.close();
    assertThatThrownBy(() -> wait.get(WAIT.toSeconds(), TimeUnit.SECONDS)).hasCauseInstanceOf(ClientClosedException.class);
    assertThatThrownBy(() -> waiter.barrier(path)).isInstanceOf(ClientClosedException.class);
    raw.zk().delete(path, -1);
  }

  @Test
  void namespace_isAddedToTheNodesOfBothBarriers() throws Exception {
    Baton shop = closing(Baton.builder().connectString(cluster.connectString()).namespace("/apps/shop").build());
    Barrier barrier = shop.barrier("/gates/a");
    barrier.set();
    assertThat(barrier.path()).isEqualTo("/gates/a");
    assertThat(raw.exists("/apps/shop/gates/a")).isTrue();
    CompletableFuture<Void> wait = shop.barrier("/gates/a").awaitAsync();
    awaitWatchers("/apps/shop/gates/a", shop.sessionId());
    barrier.remove();
    wait.get(WAIT.toSeconds(), TimeUnit.SECONDS);

    DoubleBarrier member = shop.doubleBarrier("/gates/double", 1);
    member.enter(WAIT);
    assertThat(raw.exists("/apps/shop/gates/double/ready")).isTrue();
    member.leave(WAIT);
    assertThat(raw.children("/apps/shop/gates/double")).isEmpty();
  }

  // ---- faults ---------------------------------------------------------------------------------

  /**
   * The barrier is removed while the waiter's connection is cut: the waiter must learn of it once
   * it reconnects to the same session, neither failing nor waiting for a removal that happened.
   */
  @Test
  void waiterAcrossConnectionCut_seesRemovalMadeWhileDisconnected() throws Exception {
    String path = "/barrier/cut";
    Barrier setter = baton().barrier(path);
    setter.set();
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0))) {
      Baton waiter = baton(proxy.connectString(), Duration.ofSeconds(20));
      long session = waiter.sessionId();
      CompletableFuture<Void> wait = waiter.barrier(path).awaitAsync();
      awaitWatchers(path, session);

      proxy.cut();
      await().atMost(WAIT).until(() -> waiter.connectionState() == ConnectionState.SUSPENDED);
      setter.remove();
      assertThat(wait).isNotDone();
      proxy.restore();

      wait.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(waiter.sessionId()).as("same session").isEqualTo(session);
      assertThat(watchersOf(path)).isEmpty();
    }
  }

  @Test
  void waiterAcrossConnectionCut_keepsWaitingWhileTheBarrierStaysUp() throws Exception {
    String path = "/barrier/cut-still-up";
    Barrier setter = baton().barrier(path);
    setter.set();
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0))) {
      Baton waiter = baton(proxy.connectString(), Duration.ofSeconds(20));
      CompletableFuture<Void> wait = waiter.barrier(path).awaitAsync();
      awaitWatchers(path, waiter.sessionId());
      proxy.cut();
      await().atMost(WAIT).until(() -> waiter.connectionState() == ConnectionState.SUSPENDED);
      proxy.restore();
      await().atMost(WAIT).until(() -> waiter.connectionState() == ConnectionState.RECONNECTED);
      awaitWatchers(path, waiter.sessionId()); // watching again on the same session
      assertThat(wait).isNotDone();

      setter.remove();
      wait.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }
  }

  /**
   * The waiter's session expires (its link is silent past the session timeout): its watch went
   * with the session, so it must watch again on the client's new session, stay blocked while the
   * barrier is up, and pass when it is removed.
   */
  @Test
  void waiterAcrossSessionExpiry_waitsOnTheNewSession_andPassesOnRemoval() throws Exception {
    String path = "/barrier/expiry";
    Barrier setter = baton().barrier(path);
    setter.set();
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0))) {
      Baton waiter = baton(proxy.connectString(), Duration.ofSeconds(1));
      long oldSession = waiter.sessionId();
      Future<?> blocking = pool(1).submit(() -> {
        waiter.barrier(path).await();
        return null;
      });
      CompletableFuture<Void> async = waiter.barrier(path).awaitAsync();
      awaitWatchers(path, oldSession);

      proxy.blackhole();
      await().atMost(WAIT).until(() -> watchersOf(path).isEmpty()); // the session ended on the server
      proxy.restore();
      await().atMost(WAIT).until(() -> waiter.sessionId() != oldSession && waiter.sessionId() != 0);
      awaitWatchers(path, waiter.sessionId());
      assertThat(async).isNotDone();
      assertThat(blocking).isNotDone();

      setter.remove();
      async.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      blocking.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      await().atMost(WAIT).until(() -> watchersOf(path).isEmpty());
    }
  }

  /** Removed while the waiter's session was expiring: the check on the new session sees it gone. */
  @Test
  void barrierRemovedWhileSessionExpired_waiterPassesOnTheNewSession() throws Exception {
    String path = "/barrier/expiry-removed";
    Barrier setter = baton().barrier(path);
    setter.set();
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0))) {
      Baton waiter = baton(proxy.connectString(), Duration.ofSeconds(1));
      CompletableFuture<Void> wait = waiter.barrier(path).awaitAsync();
      awaitWatchers(path, waiter.sessionId());
      proxy.blackhole();
      await().atMost(WAIT).until(() -> watchersOf(path).isEmpty());
      setter.remove();
      proxy.restore();
      wait.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }
  }

  // ---- cost -----------------------------------------------------------------------------------

  /** Packets the server counts for {@code action}, less the cost of reading the counter itself. */
  private static long requestsOf(Runnable action) {
    long reading = cluster.packetReadingCost(0);
    long before = cluster.packetsReceived(0);
    action.run();
    return cluster.packetsReceived(0) - before - reading;
  }

  /**
   * set, remove, isSet and a wait on a barrier that is down cost one request each; a wait on a
   * barrier that is up costs one request (the getData that sets the watch), and a timed-out wait
   * one more (the removal of its watch).
   */
  @Test
  void eachOperation_costsOneRequest_andATimedOutWaitOneMore() throws Exception {
    String path = "/barrier/cost/gate";
    // A persistent parent: a container could be removed by the server between two steps.
    raw.zk().create("/barrier/cost", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    Baton baton = baton(cluster.connectString(), Duration.ofSeconds(30));
    Barrier barrier = baton.barrier(path);
    assertThat(requestsOf(barrier::set)).as("set").isEqualTo(1);
    assertThat(requestsOf(barrier::isSet)).as("isSet").isEqualTo(1);
    // The removal of the watch is not waited for; a read after it is answered after it.
    assertThat(requestsOf(() -> {
      barrier.await(Duration.ofMillis(50));
      barrier.isSet();
    })).as("timed-out await, then isSet").isEqualTo(3);
    assertThat(watchersOf(path)).isEmpty();

    CompletableFuture<Void> wait = baton.barrier(path).awaitAsync();
    awaitWatchers(path, baton.sessionId());
    Baton remover = baton(cluster.connectString(), Duration.ofSeconds(30));
    Barrier removing = remover.barrier(path);
    assertThat(requestsOf(() -> {
      removing.remove();
      wait.join();
    })).as("remove, and the waiter's release").isEqualTo(1);
    assertThat(requestsOf(barrier::await)).as("await when down").isEqualTo(1);
    assertThat(requestsOf(barrier::remove)).as("remove when down").isEqualTo(1);
    raw.zk().delete("/barrier/cost", -1);
  }

  // ---- bad input ------------------------------------------------------------------------------

  @Test
  void badInput_isRejectedNamingTheArgument() throws Exception {
    Baton baton = baton();
    assertThatThrownBy(() -> baton.barrier("relative"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("barrier path 'relative'");
    assertThatThrownBy(() -> baton.barrier("/"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("barrier path '/'");
    assertThatThrownBy(() -> baton.barrier(null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("barrier path");
    Barrier barrier = baton.barrier("/barrier/bad");
    assertThatThrownBy(() -> barrier.await(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout").hasMessageContaining("-0.001");
    assertThatThrownBy(() -> barrier.await(null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("timeout");

    raw.zk().create("/barrier/bad", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    raw.zk().create("/barrier/bad/child", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    assertThatThrownBy(barrier::remove).isInstanceOf(BatonException.class)
        .hasMessageContaining("/barrier/bad").hasMessageContaining("children");
    raw.deleteRecursively("/barrier/bad");
  }
}
