package dev.baton.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.ClusterTestSupport;
import dev.baton.lock.Lease;
import dev.baton.testkit.FaultProxy;
import dev.baton.testkit.MutualExclusionChecker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The leader selector: its task runs on one participant at a time (checked with the testkit's
 * checker, entered with the task's fencing token), participants that re-queue take turns, and a
 * task is interrupted, with its listener told, when its connection is lost or its selector
 * closed, before anyone else leads.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LeaderSelectorTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(20);

  private final MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
  private final AtomicLong highestToken = new AtomicLong(Long.MIN_VALUE);
  private final List<String> regainErrors = new CopyOnWriteArrayList<>();

  private LeadershipRecorder recorder(String name) {
    return new LeadershipRecorder(name, checker, highestToken, regainErrors);
  }

  /** A task that holds leadership until interrupted, recording how it ended. */
  private static final class BlockingTask implements LeaderTask {
    final CountDownLatch started = new CountDownLatch(1);
    final AtomicBoolean interrupted = new AtomicBoolean();
    final AtomicLong endedAtNanos = new AtomicLong();
    volatile Lease lease;

    @Override
    public void lead(Lease leadership) throws Exception {
      lease = leadership;
      started.countDown();
      try {
        new CountDownLatch(1).await();
      } catch (InterruptedException e) {
        interrupted.set(true);
        throw e;
      } finally {
        endedAtNanos.set(System.nanoTime());
      }
    }
  }

  @Test
  void requeuingParticipants_takeTurns_oneTaskAtATime() throws Exception {
    String path = "/selector/turns";
    int participants = 3;
    int turnsEach = 4;
    CountDownLatch allQueued = new CountDownLatch(1);
    List<String> leaders = new CopyOnWriteArrayList<>();
    int[] plainCounter = new int[1]; // read, yield, write: overlapping tasks would lose updates
    List<LeaderSelector> selectors = new ArrayList<>();
    for (int p = 0; p < participants; p++) {
      String id = "p" + p;
      LeaderSelector selector = closing(baton().leaderSelector(path, id, lease -> {
        allQueued.await();
        try (MutualExclusionChecker.Section section = checker.enter(id, lease.fencingToken())) {
          leaders.add(id);
          int seen = plainCounter[0];
          Thread.yield();
          plainCounter[0] = seen + 1;
        }
      }));
      selectors.add(selector.autoRequeue());
      selector.start();
      awaitChildren(path, p + 1);
    }
    allQueued.countDown();

    // Each re-queues at the back, behind those already waiting, so every one keeps getting turns
    // (in strict rotation, unless a thread is slow to send its new node).
    await().atMost(WAIT).until(() -> selectors.stream().allMatch(
        s -> leaders.stream().filter(s.participantId()::equals).count() >= turnsEach));
    selectors.forEach(LeaderSelector::close);
    awaitChildren(path, 0);

    checker.assertNoViolations();
    assertThat(plainCounter[0]).isEqualTo(leaders.size());
    assertThat(leaders.subList(0, participants)).as("first turns, in queue order").containsExactly("p0", "p1", "p2");
  }

  @Test
  void taskThatReturns_givesLeadershipUp_andLeadsAgainOnlyWhenRequeued() throws Exception {
    String path = "/selector/once";
    AtomicInteger firstRuns = new AtomicInteger();
    LeaderSelector first = closing(baton().leaderSelector(path, "first", lease -> firstRuns.incrementAndGet()));
    LeadershipRecorder firstRecorder = recorder("first");
    first.addListener(firstRecorder, Runnable::run);
    BlockingTask secondTask = new BlockingTask();
    LeaderSelector second = closing(baton().leaderSelector(path, "second", secondTask));

    first.start();
    await().atMost(WAIT).until(() -> firstRuns.get() == 1);
    awaitChildren(path, 0); // gave up, not re-queued
    assertThat(first.hasLeadership()).isFalse();
    await().atMost(WAIT).until(() -> firstRecorder.events.size() == 2);
    assertThat(firstRecorder.events).containsExactly("gained", "lost:RELEASED");

    second.start();
    assertThat(secondTask.started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    assertThat(second.hasLeadership()).isTrue();
    assertThat(first.requeue()).isTrue();
    assertThat(first.requeue()).as("already queued").isFalse();
    awaitChildren(path, 2);
    assertThat(first.leaderId()).contains("second");
    assertThat(second.participants()).containsExactly("second", "first");

    second.close();
    await().atMost(WAIT).until(() -> firstRuns.get() == 2);
    assertThat(secondTask.interrupted).isTrue();
    awaitChildren(path, 0);
    checker.assertNoViolations();
  }

  /**
   * The leader's connection is cut: its task is interrupted and its listener told at once, while
   * the session still lives; the follower leads only after the old session has ended on the
   * ensemble, and its token is larger.
   */
  @Test
  void connectionLost_taskInterruptedAndListenerTold_beforeAnotherLeads() throws Exception {
    String path = "/selector/connection-lost";
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0))) {
      Baton leaderClient = baton(proxy.connectString(), Duration.ofSeconds(1));
      BlockingTask leaderTask = new BlockingTask();
      LeaderSelector leader = closing(leaderClient.leaderSelector(path, "leader", leaderTask));
      LeadershipRecorder leaderRecorder = recorder("leader");
      leader.addListener(leaderRecorder, Runnable::run);
      leader.start();
      assertThat(leaderTask.started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

      BlockingTask followerTask = new BlockingTask();
      LeaderSelector follower = closing(baton().leaderSelector(path, "follower", followerTask));
      LeadershipRecorder followerRecorder = recorder("follower");
      follower.addListener(followerRecorder, Runnable::run);
      follower.start();
      awaitChildren(path, 2);

      proxy.cut();
      assertThat(followerTask.started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
      // The task runs on a thread of its own and may start before the listener is told: wait
      // for the listener too, or the time read below is still 0.
      await().atMost(WAIT).until(() -> followerRecorder.gainedAtNanos() != 0);
      long followerLedAt = followerRecorder.gainedAtNanos();
      assertThat(leaderTask.interrupted).isTrue();
      assertThat(leaderRecorder.lostAtNanos()).isNotZero().isLessThan(followerLedAt);
      assertThat(leaderTask.endedAtNanos.get()).isLessThan(followerLedAt);
      assertThat(leaderRecorder.events).startsWith("gained", "lost:SUSPECT");
      assertThat(leader.hasLeadership()).isFalse();
      assertThat(follower.hasLeadership()).isTrue();
      assertThat(followerTask.lease.fencingToken()).isGreaterThan(leaderTask.lease.fencingToken());

      proxy.restore();
      follower.close();
      awaitChildren(path, 0); // the old leader, not auto-requeued, did not queue again
      checker.assertNoViolations();
    }
  }

  /**
   * A short disconnect: the session survives, yet leadership is taken away (the task cannot know
   * it will); its node goes once the task returns, and with auto-requeue it queues again.
   */
  @Test
  void shortDisconnect_takesLeadershipAway_andAutoRequeueQueuesAgain() throws Exception {
    String path = "/selector/short-disconnect";
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0))) {
      Baton leaderClient = baton(proxy.connectString(), Duration.ofSeconds(10));
      List<BlockingTask> tasks = new CopyOnWriteArrayList<>();
      LeaderSelector leader = closing(leaderClient.leaderSelector(path, "leader", lease -> {
        BlockingTask task = new BlockingTask();
        tasks.add(task);
        task.lead(lease);
      })).autoRequeue();
      LeadershipRecorder recorder = recorder("leader");
      leader.addListener(recorder, Runnable::run);
      leader.start();
      await().atMost(WAIT).until(() -> tasks.size() == 1 && tasks.get(0).started.getCount() == 0);
      long session = leaderClient.sessionId();

      proxy.cut();
      await().atMost(WAIT).until(() -> tasks.get(0).interrupted.get());
      proxy.restore();
      await().atMost(WAIT).until(() -> tasks.size() == 2 && tasks.get(1).started.getCount() == 0);
      assertThat(leaderClient.sessionId()).as("same session throughout").isEqualTo(session);
      assertThat(tasks.get(1).lease.fencingToken()).isGreaterThan(tasks.get(0).lease.fencingToken());
      await().atMost(WAIT).until(() -> recorder.events.size() == 3);
      assertThat(recorder.events).containsExactly("gained", "lost:SUSPECT", "gained");
      assertThat(leader.hasLeadership()).isTrue();
      leader.close();
      awaitChildren(path, 0);
      checker.assertNoViolations();
    }
  }

  @Test
  void closeWhileLeading_interruptsTask_deletesNode_andNextLeads() throws Exception {
    String path = "/selector/close-leading";
    BlockingTask firstTask = new BlockingTask();
    LeaderSelector first = closing(baton().leaderSelector(path, "first", firstTask));
    LeadershipRecorder firstRecorder = recorder("first");
    first.addListener(firstRecorder, Runnable::run);
    first.start();
    assertThat(firstTask.started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    BlockingTask secondTask = new BlockingTask();
    LeaderSelector second = closing(baton().leaderSelector(path, "second", secondTask));
    LeadershipRecorder secondRecorder = recorder("second");
    second.addListener(secondRecorder, Runnable::run);
    second.start();
    awaitChildren(path, 2);

    first.close();
    assertThat(secondTask.started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    assertThat(firstTask.interrupted).isTrue();
    await().atMost(WAIT).until(() -> secondRecorder.gainedAtNanos() != 0); // told after the task started, maybe
    assertThat(firstRecorder.lostAtNanos()).isNotZero().isLessThan(secondRecorder.gainedAtNanos());
    assertThat(first.hasLeadership()).isFalse();
    assertThat(second.leaderId()).contains("second");
    second.close();
    awaitChildren(path, 0);
    checker.assertNoViolations();
  }

  @Test
  void taskThatIgnoresTheInterrupt_keepsItsNodeUntilItReturns() throws Exception {
    String path = "/selector/stubborn";
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicBoolean sawInterrupt = new AtomicBoolean();
    LeaderSelector stubborn = closing(baton().leaderSelector(path, "stubborn", lease -> {
      started.countDown();
      while (true) {
        try {
          release.await();
          return;
        } catch (InterruptedException e) {
          sawInterrupt.set(true); // and carries on
        }
      }
    }));
    stubborn.start();
    assertThat(started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    BlockingTask nextTask = new BlockingTask();
    LeaderSelector next = closing(baton().leaderSelector(path, "next", nextTask));
    next.start();
    awaitChildren(path, 2);

    stubborn.close();
    await().atMost(WAIT).untilTrue(sawInterrupt);
    assertThat(raw.children(path)).as("the node stays while the task runs").hasSize(2);
    assertThat(nextTask.started.getCount()).isEqualTo(1);
    release.countDown();
    assertThat(nextTask.started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    next.close();
    awaitChildren(path, 0);
  }

  /**
   * The leader's lease is presumed lost while its link is cut, then the same session comes back.
   * Its task ignores the interrupt: while it runs its node must stay, so the next participant
   * does not lead beside it; once the task returns, the next one leads.
   */
  @Test
  void presumedLostThenSameSessionBack_stubbornTaskKeepsItsNodeUntilItReturns() throws Exception {
    String path = "/selector/stubborn-presumed-lost";
    CountDownLatch release = new CountDownLatch(1);
    List<dev.baton.lock.LeaseState> told = new CopyOnWriteArrayList<>();
    AtomicBoolean sawInterrupt = new AtomicBoolean();
    AtomicBoolean returned = new AtomicBoolean();
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0))) {
      Baton leaderClient = baton(proxy.connectString(), Duration.ofSeconds(6));
      LeaderSelector stubborn = closing(leaderClient.leaderSelector(path, "stubborn", lease -> {
        lease.addListener((l, state) -> told.add(state), Runnable::run);
        while (true) {
          try {
            release.await();
            returned.set(true);
            return;
          } catch (InterruptedException e) {
            sawInterrupt.set(true); // and carries on
          }
        }
      }));
      stubborn.start();
      await().atMost(WAIT).until(stubborn::hasLeadership);
      long session = leaderClient.sessionId();
      BlockingTask nextTask = new BlockingTask();
      LeaderSelector next = closing(baton().leaderSelector(path, "next", nextTask));
      next.start();
      awaitChildren(path, 2);

      proxy.cut();
      await().atMost(WAIT).until(() -> told.contains(dev.baton.lock.LeaseState.LOST));
      proxy.restore();
      await().atMost(WAIT).until(() -> leaderClient.connectionState() == dev.baton.ConnectionState.RECONNECTED);
      assertThat(leaderClient.sessionId()).as("the same session came back").isEqualTo(session);
      assertThat(sawInterrupt).isTrue();

      // A presumed loss deletes the node once the session is back, retried at most 1 s apart.
      await().during(Duration.ofSeconds(3)).atMost(WAIT).until(
          () -> nextTask.started.getCount() == 1 && raw.children(path).size() == 2);
      release.countDown();
      assertThat(nextTask.started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
      assertThat(returned).isTrue();
      next.close();
      awaitChildren(path, 0);
    }
  }
}
