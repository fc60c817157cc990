package dev.baton.internal.leadership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.internal.fake.FakeLocks;
import dev.baton.internal.fake.FakeLocks.FakeLease;
import dev.baton.leader.LeaderTask;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The neutral leader selector on an in-memory lock server. */
class MutexLeaderSelectorTest {
  private static final String PATH = "/jobs/nightly";
  private final FakeLocks server = new FakeLocks();
  private final Recorder recorder = new Recorder();
  private final List<MutexLeaderSelector> selectors = new ArrayList<>();

  @AfterEach
  void closeSelectors() {
    selectors.forEach(MutexLeaderSelector::close);
  }

  private MutexLeaderSelector selector(String id, LeaderTask task) {
    MutexLeaderSelector selector = new MutexLeaderSelector(server.mutex(PATH), id, task, Runnable::run, () -> {});
    selector.addListener(recorder.listenerFor(id));
    selectors.add(selector);
    return selector;
  }

  /** Leads until interrupted, recording the interrupt in the global sequence. */
  private LeaderTask untilInterrupted(String id, CountDownLatch running) {
    return leadership -> {
      running.countDown();
      try {
        new CountDownLatch(1).await();
      } catch (InterruptedException e) {
        recorder.add("interrupted:" + id);
        throw e;
      }
    };
  }

  @Test
  void runsTheTaskEachTimeItLeadsOneAtATime() {
    AtomicInteger running = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    AtomicInteger runs = new AtomicInteger();
    LeaderTask task = leadership -> {
      most.accumulateAndGet(running.incrementAndGet(), Math::max);
      runs.incrementAndGet();
      running.decrementAndGet();
    };
    MutexLeaderSelector s1 = selector("s1", task).autoRequeue();
    MutexLeaderSelector s2 = selector("s2", task).autoRequeue();
    s1.start();
    s2.start();
    await().until(() -> runs.get() >= 10);
    assertThat(most.get()).isEqualTo(1);
    assertThat(recorder.events).contains("gained:s1", "gained:s2");
  }

  @Test
  void withoutRequeueItLeadsOnceUntilRequeued() {
    AtomicInteger runs = new AtomicInteger();
    MutexLeaderSelector s1 = selector("s1", leadership -> runs.incrementAndGet());
    s1.start();
    await().until(() -> runs.get() == 1 && recorder.events.size() == 2);
    await().until(() -> server.holderOf(PATH).isEmpty());
    assertThat(s1.hasLeadership()).isFalse();
    assertThat(recorder.events).containsExactly("gained:s1", "lost:s1");

    assertThat(s1.requeue()).isTrue();
    await().until(() -> runs.get() == 2);
  }

  @Test
  void aLostLeaseIsToldThenInterruptsTheTaskAndTheNextLeadsAfter() throws Exception {
    CountDownLatch s1Running = new CountDownLatch(1);
    CountDownLatch s2Running = new CountDownLatch(1);
    MutexLeaderSelector s1 = selector("s1", untilInterrupted("s1", s1Running));
    MutexLeaderSelector s2 = selector("s2", untilInterrupted("s2", s2Running));
    s1.start();
    s1Running.await();
    s2.start();
    await().until(() -> server.waitersOf(PATH) == 1);

    server.holderOf(PATH).orElseThrow().lose();

    s2Running.await();
    // The lock expired with the lease: the next may lead at once, but only after s1 was told.
    // s1's task is interrupted meanwhile (its thread records that on its own time).
    await().until(() -> recorder.events.contains("interrupted:s1"));
    assertThat(recorder.indexOf("lost:s1")).isLessThan(recorder.indexOf("gained:s2"));
    assertThat(recorder.indexOf("lost:s1")).isLessThan(recorder.indexOf("interrupted:s1"));
    assertThat(s2.hasLeadership()).isTrue();
  }

  @Test
  void aSuspectLeaseTakesTheLeadAwayAndTheLockGoesOnceTheTaskReturns() throws Exception {
    CountDownLatch s1Running = new CountDownLatch(1);
    CountDownLatch s2Running = new CountDownLatch(1);
    MutexLeaderSelector s1 = selector("s1", untilInterrupted("s1", s1Running));
    MutexLeaderSelector s2 = selector("s2", untilInterrupted("s2", s2Running));
    s1.start();
    s1Running.await();
    s2.start();
    await().until(() -> server.waitersOf(PATH) == 1);
    FakeLease s1Lock = server.holderOf(PATH).orElseThrow();

    s1Lock.suspect();

    s2Running.await();
    // The listeners hear on their executor, so s2's gain may be told just after its task starts.
    await().untilAsserted(() ->
        assertThat(recorder.events).containsExactly("gained:s1", "lost:s1", "interrupted:s1", "gained:s2"));
    assertThat(s1Lock.state()).isEqualTo(dev.baton.lock.LeaseState.RELEASED);
  }

  @Test
  void closingInterruptsTheRunningTaskAndLetsTheNextLead() throws Exception {
    CountDownLatch s1Running = new CountDownLatch(1);
    CountDownLatch s2Running = new CountDownLatch(1);
    MutexLeaderSelector s1 = selector("s1", untilInterrupted("s1", s1Running));
    MutexLeaderSelector s2 = selector("s2", untilInterrupted("s2", s2Running));
    s1.start();
    s1Running.await();
    s2.start();
    await().until(() -> server.waitersOf(PATH) == 1);
    assertThat(s2.participants()).containsExactly("s1", "s2");

    s1.close();

    s2Running.await();
    // The listeners hear on their executor, so s2's gain may be told just after its task starts.
    await().untilAsserted(() ->
        assertThat(recorder.events).containsExactly("gained:s1", "lost:s1", "interrupted:s1", "gained:s2"));
  }

  @Test
  void aTaskThatThrowsGivesUpTheLead() {
    AtomicInteger runs = new AtomicInteger();
    MutexLeaderSelector s1 = selector("s1", leadership -> {
      runs.incrementAndGet();
      throw new IllegalStateException("the job failed");
    }).autoRequeue();
    s1.start();
    await().until(() -> runs.get() >= 3);
    assertThat(s1.failure()).isEmpty();
  }
}
