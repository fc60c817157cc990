package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.leader.LeaderLatch;
import dev.baton.leader.LeaderSelector;
import dev.baton.leader.LeadershipListener;
import dev.baton.lock.FencedResource;
import dev.baton.lock.Lease;
import dev.baton.lock.StaleTokenException;
import dev.baton.testkit.FaultProxy;
import dev.baton.testkit.MutualExclusionChecker;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The neutral leader latch and selector on a real Redis: one leader at a time, failover when the
 * leader's client closes or its link is cut past the lease TTL, the old leader told before the new
 * one, and the deposed leader's token refused.
 */
class RedisLeaderElectionTest extends RedisTestSupport {
  private static final String ELECTION = "/services/billing/leader";
  /** Every participant's gains and losses, in the one order they happened in this JVM. */
  private final List<String> sequence = new CopyOnWriteArrayList<>();

  private LeadershipListener recording(String id) {
    return new LeadershipListener() {
      @Override
      public void leadershipGained(Lease leadership) {
        sequence.add("gained:" + id);
      }

      @Override
      public void leadershipLost(Lease leadership) {
        sequence.add("lost:" + id);
      }
    };
  }

  private LeaderLatch latch(RedisBaton client, String id) {
    LeaderLatch latch = closeAfter(client.leaderLatch(ELECTION, id));
    latch.addListener(recording(id));
    latch.start();
    return latch;
  }

  private String leaderOf(List<LeaderLatch> latches) {
    return latches.stream().filter(LeaderLatch::hasLeadership).map(LeaderLatch::participantId).findFirst().orElse(null);
  }

  @Test
  void selectorsOnThreeClientsLeadOneAtATime() {
    MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
    FencedResource<List<String>> log = new FencedResource<>("log", new ArrayList<>());
    Map<String, MutualExclusionChecker.Section> open = new ConcurrentHashMap<>();
    for (String id : List.of("a", "b", "c")) {
      LeaderSelector selector = closeAfter(client().leaderSelector(ELECTION, id, leadership -> {
        MutualExclusionChecker.Section section = checker.enter(id, leadership.fencingToken());
        open.put(id, section);
        try {
          raw().incr("work"); // a round trip to Redis while leading
          log.write(leadership.fencingToken(), entries -> entries.add(id));
        } finally {
          section.exit();
        }
      }).autoRequeue());
      selector.addListener(new LeadershipListener() {
        @Override
        public void leadershipGained(Lease leadership) {}

        @Override
        public void leadershipLost(Lease leadership) {
          MutualExclusionChecker.Section section = open.remove(id);
          if (section != null) {
            section.lost();
          }
        }
      });
      selector.start();
    }

    await().atMost(Duration.ofSeconds(30)).until(() -> checker.sectionCount() >= 30);
    checker.assertNoViolations();
    assertThat(checker.sectionsByClient()).containsKeys("a", "b", "c");
  }

  @Test
  void theLeadersIdIsVisibleToEveryClient() {
    LeaderLatch first = latch(client(), "billing-1");
    assertThat(first.await(Duration.ofSeconds(10))).isTrue();
    LeaderLatch second = latch(client(), "billing-2");
    await().until(() -> second.participants().equals(List.of("billing-1", "billing-2")));
    assertThat(second.leaderId()).contains("billing-1");
    assertThat(second.hasLeadership()).isFalse();
  }

  @Test
  void whenTheLeadersClientClosesTheNextLeadsAfterTheOldOneWasTold() {
    List<RedisBaton> clients = List.of(client(), client(), client());
    List<LeaderLatch> latches = new ArrayList<>();
    for (int i = 0; i < clients.size(); i++) {
      latches.add(latch(clients.get(i), "p" + i));
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> leaderOf(latches) != null);
    String old = leaderOf(latches);
    int oldIndex = Integer.parseInt(old.substring(1));
    long oldToken = latches.get(oldIndex).leadership().orElseThrow().fencingToken();

    clients.get(oldIndex).close();

    await().atMost(Duration.ofSeconds(10)).until(() -> {
      String now = leaderOf(latches);
      return now != null && !now.equals(old);
    });
    String next = leaderOf(latches);
    await().until(() -> sequence.contains("lost:" + old));
    assertThat(sequence.indexOf("lost:" + old)).isLessThan(sequence.indexOf("gained:" + next));
    assertThat(latches.stream().filter(LeaderLatch::hasLeadership)).hasSize(1);
    assertThat(latches.get(Integer.parseInt(next.substring(1))).leadership().orElseThrow().fencingToken())
        .isGreaterThan(oldToken);
  }

  @Test
  void aLeaderCutOffPastTheTtlIsToldBeforeTheNextLeadsAndItsTokenIsRefused() {
    FaultProxy proxy = closeAfter(FaultProxy.start(new InetSocketAddress(redis.host(), redis.port())));
    RedisBaton cutOff = client(RedisBaton.builder().uri("redis://" + proxy.connectString())
        .leaseTtl(Duration.ofMillis(1500)).renewEvery(Duration.ofMillis(300))
        .commandTimeout(Duration.ofMillis(500)).connectTimeout(Duration.ofMillis(500)));
    LeaderLatch old = latch(cutOff, "old");
    assertThat(old.await(Duration.ofSeconds(10))).isTrue();
    Lease oldLeadership = old.leadership().orElseThrow();
    LeaderLatch b = latch(client(), "b");
    LeaderLatch c = latch(client(), "c");
    await().until(() -> b.participants().size() == 3);
    FencedResource<List<String>> resource = new FencedResource<>("orders", new ArrayList<>());
    resource.write(oldLeadership.fencingToken(), writes -> writes.add("old"));

    proxy.cut();

    await().atMost(Duration.ofSeconds(15)).until(() -> b.hasLeadership() || c.hasLeadership());
    LeaderLatch next = b.hasLeadership() ? b : c;
    assertThat(sequence.indexOf("lost:old")).isNotNegative()
        .isLessThan(sequence.indexOf("gained:" + next.participantId()));
    assertThat(old.hasLeadership()).isFalse();
    Lease newLeadership = next.leadership().orElseThrow();
    assertThat(newLeadership.fencingToken()).isGreaterThan(oldLeadership.fencingToken());
    resource.write(newLeadership.fencingToken(), writes -> writes.add(next.participantId()));

    // The deposed leader wakes up and writes with what it still holds: refused.
    assertThatThrownBy(() -> resource.write(oldLeadership.fencingToken(), writes -> writes.add("old again")))
        .isInstanceOf(StaleTokenException.class);
    List<String> written = resource.read(List::copyOf);
    assertThat(written).containsExactly("old", next.participantId());

    proxy.restore();
    // Back on the link, the old participant queues again behind the others rather than leading.
    await().atMost(Duration.ofSeconds(15)).until(() -> next.participants().contains("old"));
    assertThat(old.hasLeadership()).isFalse();
    assertThat(old.failure()).isEmpty();
  }

  @Test
  void aSelectorCutOffIsToldThenInterruptedAndTheNextLeadsAfterTheLoss() {
    FaultProxy proxy = closeAfter(FaultProxy.start(new InetSocketAddress(redis.host(), redis.port())));
    RedisBaton cutOff = client(RedisBaton.builder().uri("redis://" + proxy.connectString())
        .leaseTtl(Duration.ofMillis(1500)).renewEvery(Duration.ofMillis(300))
        .commandTimeout(Duration.ofMillis(500)).connectTimeout(Duration.ofMillis(500)));
    FencedResource<List<String>> resource = new FencedResource<>("report", new ArrayList<>());
    List<Long> tokens = new CopyOnWriteArrayList<>();
    LeaderSelector old = closeAfter(cutOff.leaderSelector(ELECTION, "old", leadership -> {
      tokens.add(leadership.fencingToken());
      resource.write(leadership.fencingToken(), lines -> lines.add("old"));
      try {
        new java.util.concurrent.CountDownLatch(1).await(); // leads until leadership is taken away
      } catch (InterruptedException e) {
        sequence.add("interrupted:old");
      }
    }));
    old.addListener(recording("old"));
    old.start();
    await().until(old::hasLeadership);
    LeaderSelector next = closeAfter(client().leaderSelector(ELECTION, "next", leadership -> {
      resource.write(leadership.fencingToken(), lines -> lines.add("next"));
      new java.util.concurrent.CountDownLatch(1).await();
    }));
    next.addListener(recording("next"));
    next.start();
    await().until(() -> next.participants().size() == 2);

    proxy.cut();

    await().atMost(Duration.ofSeconds(15)).until(next::hasLeadership);
    await().until(() -> sequence.contains("interrupted:old"));
    assertThat(sequence.indexOf("lost:old")).isNotNegative()
        .isLessThan(sequence.indexOf("gained:next"))
        .isLessThan(sequence.indexOf("interrupted:old"));
    await().until(() -> resource.read(List::size) == 2);
    assertThatThrownBy(() -> resource.write(tokens.get(0), lines -> lines.add("old again")))
        .isInstanceOf(StaleTokenException.class);
  }

  @Test
  void aLatchWhoseLinkComesBackWithinTheTtlLeadsAgainWithTheSameLease() {
    FaultProxy proxy = closeAfter(FaultProxy.start(new InetSocketAddress(redis.host(), redis.port())));
    // A TTL long enough that the link is back well before it passes, however slow the machine.
    RedisBaton flaky = client(RedisBaton.builder().uri("redis://" + proxy.connectString())
        .leaseTtl(Duration.ofSeconds(20)).renewEvery(Duration.ofMillis(300))
        .commandTimeout(Duration.ofMillis(500)).connectTimeout(Duration.ofMillis(500)));
    LeaderLatch latch = latch(flaky, "flaky");
    assertThat(latch.await(Duration.ofSeconds(10))).isTrue();
    Lease leadership = latch.leadership().orElseThrow();
    LeaderLatch other = latch(client(), "other");

    proxy.cut();
    await().until(() -> sequence.contains("lost:flaky"));
    assertThat(latch.hasLeadership()).isFalse();
    proxy.restore();

    await().atMost(Duration.ofSeconds(15)).until(latch::hasLeadership);
    assertThat(latch.leadership()).containsSame(leadership);
    assertThat(sequence).containsExactly("gained:flaky", "lost:flaky", "gained:flaky");
    assertThat(other.hasLeadership()).isFalse();
  }
}
