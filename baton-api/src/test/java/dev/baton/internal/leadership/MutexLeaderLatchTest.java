package dev.baton.internal.leadership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.ClientClosedException;
import dev.baton.ConnectionException;
import dev.baton.internal.fake.FakeLocks;
import dev.baton.internal.fake.FakeLocks.FakeLease;
import dev.baton.internal.fake.FakeLocks.FakeMutex;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The neutral leader latch on an in-memory lock server. */
class MutexLeaderLatchTest {
  private static final String PATH = "/election";
  private final FakeLocks server = new FakeLocks();
  private final Recorder recorder = new Recorder();
  private final List<MutexLeaderLatch> latches = new ArrayList<>();

  @AfterEach
  void closeLatches() {
    latches.forEach(MutexLeaderLatch::close);
  }

  private MutexLeaderLatch latch(String id) {
    return latch(id, server.mutex(PATH));
  }

  private MutexLeaderLatch latch(String id, FakeMutex mutex) {
    MutexLeaderLatch latch = new MutexLeaderLatch(mutex, id, Runnable::run, () -> {});
    latch.addListener(recorder.listenerFor(id));
    latches.add(latch);
    return latch;
  }

  private static FakeLease lockOf(MutexLeaderLatch latch) {
    return (FakeLease) ((Leadership) latch.leadership().orElseThrow()).lock();
  }

  @Test
  void oneLeadsAndTheNextGainsOnlyAfterTheLossWasTold() {
    MutexLeaderLatch p1 = latch("p1");
    MutexLeaderLatch p2 = latch("p2");
    MutexLeaderLatch p3 = latch("p3");
    p1.start();
    assertThat(p1.await(Duration.ofSeconds(5))).isTrue();
    // Each start queues from a thread of its own: one at a time, so the queue's order is known.
    p2.start();
    await().until(() -> server.waitersOf(PATH) == 1);
    p3.start();
    await().until(() -> server.waitersOf(PATH) == 2);
    assertThat(p2.hasLeadership()).isFalse();
    assertThat(p1.leaderId()).contains("p1");
    assertThat(p3.participants()).containsExactly("p1", "p2", "p3");

    long firstToken = p1.leadership().orElseThrow().fencingToken();
    p1.close();

    assertThat(p2.await(Duration.ofSeconds(5))).isTrue();
    assertThat(p2.leadership().orElseThrow().fencingToken()).isGreaterThan(firstToken);
    assertThat(recorder.events).containsExactly("gained:p1", "lost:p1", "gained:p2");
    assertThat(p3.hasLeadership()).isFalse();
    assertThat(p1.await(Duration.ZERO)).isFalse(); // closed
  }

  @Test
  void suspectIsNotLeadingAndHeldAgainLeadsWithTheSameLease() {
    MutexLeaderLatch p1 = latch("p1");
    p1.start();
    assertThat(p1.await(Duration.ofSeconds(5))).isTrue();
    Lease leadership = p1.leadership().orElseThrow();

    lockOf(p1).suspect();
    assertThat(p1.hasLeadership()).isFalse();
    assertThat(p1.leadership()).containsSame(leadership); // SUSPECT: still the lease, not leading
    assertThat(p1.await(Duration.ZERO)).isFalse();

    lockOf(p1).resume();
    assertThat(p1.hasLeadership()).isTrue();
    assertThat(p1.leadership()).containsSame(leadership);
    assertThat(recorder.events).containsExactly("gained:p1", "lost:p1", "gained:p1");
  }

  @Test
  void aLostLeaseIsToldBeforeTheNextLeaderAndTheLatchRejoinsAtTheBack() {
    MutexLeaderLatch p1 = latch("p1");
    MutexLeaderLatch p2 = latch("p2");
    p1.start();
    assertThat(p1.await(Duration.ofSeconds(5))).isTrue();
    p2.start();
    await().until(() -> server.waitersOf(PATH) == 1);

    lockOf(p1).lose();

    assertThat(p2.await(Duration.ofSeconds(5))).isTrue();
    assertThat(recorder.events).containsExactly("gained:p1", "lost:p1", "gained:p2");
    await().until(() -> p2.participants().equals(List.of("p2", "p1")));
    assertThat(p1.hasLeadership()).isFalse();
    assertThat(p1.failure()).isEmpty();
  }

  @Test
  void closingTheLeadershipLeaseStepsDownAndRejoinsAtTheBack() {
    MutexLeaderLatch p1 = latch("p1");
    MutexLeaderLatch p2 = latch("p2");
    p1.start();
    assertThat(p1.await(Duration.ofSeconds(5))).isTrue();
    p2.start();
    await().until(() -> server.waitersOf(PATH) == 1);

    Lease leadership = p1.leadership().orElseThrow();
    leadership.close();

    assertThat(leadership.state()).isEqualTo(LeaseState.RELEASED);
    assertThat(p2.await(Duration.ofSeconds(5))).isTrue();
    assertThat(recorder.events).containsExactly("gained:p1", "lost:p1", "gained:p2");
    await().until(() -> p1.participants().equals(List.of("p2", "p1")));

    p2.close();
    assertThat(p1.await(Duration.ofSeconds(5))).isTrue();
  }

  @Test
  void closingAQueuedLatchWithdrawsIt() {
    MutexLeaderLatch p1 = latch("p1");
    MutexLeaderLatch p2 = latch("p2");
    p1.start();
    assertThat(p1.await(Duration.ofSeconds(5))).isTrue();
    p2.start();
    await().until(() -> server.waitersOf(PATH) == 1);

    p2.close();

    assertThat(server.waitersOf(PATH)).isZero();
    p1.close();
    assertThat(server.holderOf(PATH)).isEmpty();
    assertThat(recorder.events).containsExactly("gained:p1", "lost:p1");
  }

  @Test
  void awaitNeedsAStartedLatchAndAValidTimeout() {
    MutexLeaderLatch p1 = latch("p1");
    assertThatThrownBy(() -> p1.await(Duration.ZERO)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not started");
    assertThatThrownBy(() -> p1.await(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
    p1.start();
    assertThatThrownBy(p1::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("already started");
    p1.close();
    assertThatThrownBy(p1::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    assertThatThrownBy(() -> latch(" ")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aClosedClientEndsTheLatchAndTellsTheFailureListeners() {
    FakeMutex mutex = server.mutex(PATH);
    mutex.refusals.add(() -> new ClientClosedException("fake://server"));
    MutexLeaderLatch p1 = latch("p1", mutex);
    AtomicReference<RuntimeException> told = new AtomicReference<>();
    p1.addFailureListener(told::set);

    p1.start();

    await().until(() -> told.get() != null);
    assertThat(p1.failure()).containsSame(told.get());
    assertThat(told.get()).isInstanceOf(ClientClosedException.class);
    assertThatThrownBy(() -> p1.await(Duration.ofSeconds(5))).isInstanceOf(IllegalStateException.class)
        .hasCauseInstanceOf(ClientClosedException.class);
    AtomicReference<RuntimeException> late = new AtomicReference<>();
    p1.addFailureListener(late::set); // already failed: told at once
    assertThat(late.get()).isSameAs(told.get());
  }

  @Test
  void connectionTroubleWhileQueueingIsRiddenOut() {
    FakeMutex mutex = server.mutex(PATH);
    mutex.refusals.add(() -> new ConnectionException("link down"));
    mutex.refusals.add(() -> new ConnectionException("still down"));
    MutexLeaderLatch p1 = latch("p1", mutex);
    p1.start();
    assertThat(p1.await(Duration.ofSeconds(10))).isTrue();
    assertThat(p1.failure()).isEmpty();
  }

  @Test
  void listenersRunOnTheExecutorTheyWereAddedWith() throws Exception {
    ExecutorService executor = Executors.newSingleThreadExecutor(r -> new Thread(r, "listener-executor"));
    try {
      MutexLeaderLatch p1 = latch("p1");
      List<String> threads = new java.util.concurrent.CopyOnWriteArrayList<>();
      p1.addListener(new dev.baton.leader.LeadershipListener() {
        @Override
        public void leadershipGained(Lease leadership) {
          threads.add(Thread.currentThread().getName());
        }

        @Override
        public void leadershipLost(Lease leadership) {
          threads.add(Thread.currentThread().getName());
        }
      }, executor);
      p1.start();
      assertThat(p1.await(Duration.ofSeconds(5))).isTrue();
      p1.close();
      await().until(() -> threads.size() == 2);
      assertThat(threads).containsOnly("listener-executor");
    } finally {
      executor.shutdownNow();
    }
  }

  @Test
  void participantsQueueFromAThreadNamedAfterTheirId() {
    MutexLeaderLatch p1 = latch("billing-3");
    p1.start();
    assertThat(p1.await(Duration.ofSeconds(5))).isTrue();
    assertThat(server.askingThreads).containsExactly(ParticipantQueue.PREFIX + "billing-3");
    assertThat(p1.leaderId()).contains("billing-3");
  }
}
