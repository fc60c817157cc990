package dev.baton.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Coordinator;
import dev.baton.leader.LeaderLatch;
import dev.baton.leader.LeaderSelector;
import dev.baton.leader.LeadershipListener;
import dev.baton.lock.FencedResource;
import dev.baton.lock.Lease;
import dev.baton.lock.StaleTokenException;
import dev.baton.testkit.MutualExclusionChecker;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The contract of leadership ({@link LeaderLatch}, {@link LeaderSelector}): one leader at a time
 * across clients, with growing tokens; a deposed leader's token refused by {@link FencedResource};
 * the loss told before the next leader is told it leads. On a backend without the feature every
 * case checks the declared refusal instead.
 */
public abstract class LeaderContract extends ContractSupport {

  /** Records leadership as sections: gained enters, lost exits; and when each came, in order. */
  private static final class Recorder implements LeadershipListener {
    final String who;
    final MutualExclusionChecker checker;
    final Map<String, Long> when;
    volatile MutualExclusionChecker.Section section;
    final AtomicInteger gains = new AtomicInteger();
    final AtomicLong lastToken = new AtomicLong(-1);

    Recorder(String who, MutualExclusionChecker checker, Map<String, Long> when) {
      this.who = who;
      this.checker = checker;
      this.when = when;
    }

    @Override
    public void leadershipGained(Lease leadership) {
      when.putIfAbsent(who + " gained", next());
      lastToken.set(leadership.fencingToken());
      gains.incrementAndGet();
      section = checker.enter(who, leadership.fencingToken());
    }

    @Override
    public void leadershipLost(Lease leadership) {
      when.putIfAbsent(who + " lost", next());
      MutualExclusionChecker.Section s = section;
      if (s != null) {
        s.exit();
      }
    }
  }

  /**
   * One leader at a time, each with a larger token than the one before, as the latches read it.
   * (Listeners are not used to judge overlap here: a voluntary hand-over tells the old leader's
   * listeners on its client's notice thread, which a busy machine can run after the next leader's
   * client told its own; see the report of issue 36.)
   */
  @Test
  public void latch_oneLeaderAtATime_acrossClients_withGrowingTokens() throws Exception {
    whereSupported(Feature.LEADER_LATCH, () -> {
      String name = name("latch");
      List<LeaderLatch> latches = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        LeaderLatch latch = client().leaderLatch(name, "p" + i);
        latches.add(latch);
        latch.start();
      }
      long previous = Long.MIN_VALUE;
      while (!latches.isEmpty()) {
        await().untilAsserted(() -> assertThat(latches.stream().filter(LeaderLatch::hasLeadership)).hasSize(1));
        LeaderLatch leader = latches.stream().filter(LeaderLatch::hasLeadership).findFirst().orElseThrow();
        long token = leader.leadership().orElseThrow().fencingToken();
        assertThat(token).as("the token of leader %s", leader.participantId()).isGreaterThan(previous);
        previous = token;
        for (LeaderLatch latch : latches) {
          assertThat(latch.leaderId()).as("the leader as %s reads it", latch.participantId())
              .contains(leader.participantId());
        }
        leader.close();
        latches.remove(leader);
      }
    });
  }

  @Test
  public void latch_deposedLeadersToken_isRefusedByFencedResource_andTheLossIsToldFirst() throws Exception {
    whereSupported(Feature.LEADER_LATCH, () -> {
      String name = name("deposed");
      MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
      Map<String, Long> when = new ConcurrentHashMap<>();
      Coordinator first = client();
      LeaderLatch a = first.leaderLatch(name, "a");
      Recorder ra = new Recorder("a", checker, when);
      a.addListener(ra);
      a.start();
      assertThat(a.await(WAIT)).isTrue();
      long tokenA = a.leadership().orElseThrow().fencingToken();
      FencedResource<List<String>> resource = new FencedResource<>("leader-log", new ArrayList<>());
      resource.write(tokenA, log -> log.add("a"));

      LeaderLatch b = client().leaderLatch(name, "b");
      Recorder rb = new Recorder("b", checker, when);
      b.addListener(rb);
      b.start();
      await().untilAsserted(() -> assertThat(b.participants()).containsExactly("a", "b"));

      backend().cutLink(first);
      assertThat(b.await(WAIT)).isTrue();
      await().untilAsserted(() -> assertThat(when).containsKey("b gained"));
      long tokenB = b.leadership().orElseThrow().fencingToken();
      assertThat(tokenB).isGreaterThan(tokenA);
      resource.write(tokenB, log -> log.add("b"));
      assertThatThrownBy(() -> resource.write(tokenA, log -> log.add("a again")))
          .isInstanceOf(StaleTokenException.class);
      List<String> written = resource.read(log -> List.copyOf(log));
      assertThat(written).containsExactly("a", "b");

      assertThat(when).containsKey("a lost");
      assertThat(when.get("a lost")).as("the deposed leader told before the next one").isLessThan(when.get("b gained"));
      assertThat(a.hasLeadership()).isFalse();
      checker.assertNoViolations();
    });
  }

  @Test
  public void selector_oneLeaderAtATime_acrossClients_withGrowingTokens() throws Exception {
    whereSupported(Feature.LEADER_SELECTOR, () -> {
      String name = name("selector");
      // Judged by the tasks, which run only while leading: no two overlap, tokens grow.
      MutualExclusionChecker byTask = MutualExclusionChecker.exclusive();
      AtomicInteger led = new AtomicInteger();
      List<LeaderSelector> selectors = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        String who = "p" + i;
        LeaderSelector selector = client().leaderSelector(name, who, leadership -> {
          MutualExclusionChecker.Section section = byTask.enter(who, leadership.fencingToken());
          Thread.yield();
          section.exit();
          led.incrementAndGet();
        }).autoRequeue();
        selectors.add(selector);
      }
      selectors.forEach(LeaderSelector::start);
      await().untilAsserted(() -> assertThat(led.get()).isGreaterThanOrEqualTo(9));
      selectors.forEach(LeaderSelector::close);
      byTask.assertNoViolations();
    });
  }

  @Test
  public void selector_deposedByLinkLoss_isInterruptedAndToldBeforeTheNextLeads() throws Exception {
    whereSupported(Feature.LEADER_SELECTOR, () -> {
      String name = name("selector-deposed");
      MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
      Map<String, Long> when = new ConcurrentHashMap<>();
      CountDownLatch aLeads = new CountDownLatch(1);
      Coordinator first = client();
      LeaderSelector a = first.leaderSelector(name, "a", leadership -> {
        aLeads.countDown();
        try {
          new CountDownLatch(1).await(); // lead until interrupted
        } catch (InterruptedException e) {
          when.putIfAbsent("a interrupted", next());
        }
      });
      Recorder ra = new Recorder("a", checker, when);
      a.addListener(ra);
      a.start();
      await().until(() -> aLeads.getCount() == 0 && ra.lastToken.get() != -1);
      long tokenA = ra.lastToken.get();
      FencedResource<List<String>> resource = new FencedResource<>("selector-log", new ArrayList<>());
      resource.write(tokenA, log -> log.add("a"));

      CountDownLatch bLeads = new CountDownLatch(1);
      LeaderSelector b = client().leaderSelector(name, "b", leadership -> {
        when.putIfAbsent("b task", next());
        resource.write(leadership.fencingToken(), log -> log.add("b"));
        bLeads.countDown();
      });
      Recorder rb = new Recorder("b", checker, when);
      b.addListener(rb);
      b.start();
      await().untilAsserted(() -> assertThat(b.participants()).containsExactly("a", "b"));

      backend().cutLink(first);
      await().until(() -> bLeads.getCount() == 0);
      // Listeners run on the client's notice executor, which the task's thread does not wait for.
      await().until(() -> rb.lastToken.get() != -1);
      assertThat(rb.lastToken.get()).isGreaterThan(tokenA);
      assertThatThrownBy(() -> resource.write(tokenA, log -> log.add("a again")))
          .isInstanceOf(StaleTokenException.class);
      assertThat(when).containsKeys("a lost", "a interrupted", "b gained", "b task");
      assertThat(when.get("a lost")).as("the deposed leader told before the next one").isLessThan(when.get("b gained"));
      assertThat(when.get("a interrupted")).as("the deposed leader's task interrupted before the next one runs")
          .isLessThan(when.get("b task"));
      checker.assertNoViolations();
    });
  }

  @Test
  public void latch_closingTheLeadershipLease_stepsDown_andTheNextLeads() throws Exception {
    whereSupported(Feature.LEADER_LATCH, () -> {
      String name = name("step-down");
      LeaderLatch a = client().leaderLatch(name, "a");
      a.start();
      assertThat(a.await(WAIT)).isTrue();
      LeaderLatch b = client().leaderLatch(name, "b");
      b.start();
      await().untilAsserted(() -> assertThat(participantsView(a, b).participants()).containsExactly("a", "b"));
      assertThat(b.await(java.time.Duration.ZERO)).as("await(ZERO) only looks").isFalse();

      Lease leadership = a.leadership().orElseThrow();
      leadership.close();
      assertThat(b.await(WAIT)).isTrue();
      assertThat(a.hasLeadership()).isFalse();
      assertThat(b.leadership().orElseThrow().fencingToken()).isGreaterThan(leadership.fencingToken());
      await().untilAsserted(() -> assertThat(participantsView(b, a).participants()).as("the one who stepped down, at the back")
          .containsExactly("b", "a"));
      b.close();
      assertThat(a.await(WAIT)).isTrue();
      a.close();
    });
  }

  /**
   * The latch whose {@code participants()} a case reads to see {@code waiter} queued behind {@code
   * leader}: the leader's (another client's) where {@link Promise#WAITERS_SEEN_BY_EVERY_CLIENT} is
   * promised, else the waiter's own client's, the only one declared to list it.
   */
  private LeaderLatch participantsView(LeaderLatch leader, LeaderLatch waiter) {
    return promises(Promise.WAITERS_SEEN_BY_EVERY_CLIENT) ? leader : waiter;
  }
}
