package dev.baton.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.leader.LeaderLatch;
import dev.baton.leader.LeadershipListener;
import dev.baton.lock.Lease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Leader latch, leader selector and multi lock (baton-api's algorithms) over the SQL mutex, on a real PostgreSQL. */
class JdbcPostgresLeadershipTest {
  private static final PostgresServer server = PostgresServer.shared();
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  private <T extends AutoCloseable> T track(T t) {
    toClose.add(t);
    return t;
  }

  @Test
  void oneLeaderAtATimeAndTheNextHasALargerToken() {
    String url = server.url(server.newDatabase(), "");
    JdbcBaton a = track(JdbcBaton.builder().url(url).createSchema(true).build());
    JdbcBaton b = track(JdbcBaton.builder().url(url).build());
    List<String> events = new CopyOnWriteArrayList<>();
    List<LeaderLatch> latches = List.of(track(a.leaderLatch("/election", "p1")), track(b.leaderLatch("/election", "p2")),
        track(b.leaderLatch("/election", "p3")));
    for (LeaderLatch l : latches) {
      l.addListener(new LeadershipListener() {
        @Override
        public void leadershipGained(Lease leadership) {
          events.add("gained " + l.participantId());
        }

        @Override
        public void leadershipLost(Lease leadership) {
          events.add("lost " + l.participantId());
        }
      });
      l.start();
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> latches.stream().filter(LeaderLatch::hasLeadership).count() == 1);
    LeaderLatch leader = latches.stream().filter(LeaderLatch::hasLeadership).findFirst().orElseThrow();
    assertThat(leader.await(Duration.ZERO)).isTrue();
    assertThat(a.leaderLatch("/election", "observer").leaderId()).contains(leader.participantId());
    long token = leader.leadership().orElseThrow().fencingToken();

    leader.close();
    await().atMost(Duration.ofSeconds(10)).until(() -> latches.stream().filter(LeaderLatch::hasLeadership).count() == 1);
    LeaderLatch next = latches.stream().filter(LeaderLatch::hasLeadership).findFirst().orElseThrow();
    assertThat(next).isNotSameAs(leader);
    assertThat(next.leadership().orElseThrow().fencingToken()).isGreaterThan(token);
    await().atMost(Duration.ofSeconds(5)).until(() -> events.contains("gained " + next.participantId()));
    assertThat(events).containsSubsequence("gained " + leader.participantId(), "lost " + leader.participantId(),
        "gained " + next.participantId());
  }

  @Test
  void closingTheLeadershipLeaseStepsDownAndRejoins() {
    String url = server.url(server.newDatabase(), "");
    JdbcBaton a = track(JdbcBaton.builder().url(url).createSchema(true).build());
    LeaderLatch only = track(a.leaderLatch("/solo", "p1"));
    assertThatThrownBy(() -> only.await(Duration.ZERO)).isInstanceOf(IllegalStateException.class);
    only.start();
    assertThatThrownBy(only::start).isInstanceOf(IllegalStateException.class);
    assertThat(only.await(Duration.ofSeconds(10))).isTrue();
    Lease first = only.leadership().orElseThrow();
    first.close(); // step down: alone in the election, it leads again, with a new lease
    await().atMost(Duration.ofSeconds(10)).until(() -> only.leadership().map(l -> l != first).orElse(false));
    assertThat(only.leadership().orElseThrow().fencingToken()).isGreaterThan(first.fencingToken());
    only.close();
    assertThat(only.hasLeadership()).isFalse();
    assertThat(only.await(Duration.ZERO)).isFalse();
  }

  @Test
  void selectorsRunTheirTasksOneAtATimeWithGrowingTokens() throws Exception {
    String url = server.url(server.newDatabase(), "");
    JdbcBaton a = track(JdbcBaton.builder().url(url).createSchema(true).build());
    JdbcBaton b = track(JdbcBaton.builder().url(url).build());
    java.util.concurrent.atomic.AtomicInteger inside = new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicInteger overlaps = new java.util.concurrent.atomic.AtomicInteger();
    List<Long> tokens = new CopyOnWriteArrayList<>();
    dev.baton.leader.LeaderTask task = leadership -> {
      if (inside.incrementAndGet() != 1) {
        overlaps.incrementAndGet();
      }
      tokens.add(leadership.fencingToken());
      inside.decrementAndGet();
    };
    var s1 = track(a.leaderSelector("/jobs/nightly", "s1", task).autoRequeue());
    var s2 = track(b.leaderSelector("/jobs/nightly", "s2", task).autoRequeue());
    s1.start();
    s2.start();
    await().atMost(Duration.ofSeconds(20)).until(() -> tokens.size() >= 6);
    s1.close();
    s2.close();
    assertThat(overlaps).hasValue(0);
    assertThat(tokens).isSorted().doesNotHaveDuplicates();
  }

  @Test
  void aMultiLockTakesEveryRowOrNone() {
    String url = server.url(server.newDatabase(), "");
    JdbcBaton a = track(JdbcBaton.builder().url(url).createSchema(true).build());
    JdbcBaton b = track(JdbcBaton.builder().url(url).build());
    var both = a.multiLock(a.mutex("/accounts/1"), a.mutex("/accounts/2"));
    Lease blocker = b.mutex("/accounts/2").acquire(Duration.ofSeconds(5));
    assertThat(both.tryAcquire(Duration.ofMillis(300))).isEmpty();
    // Nothing kept of the failed attempt (its part is freed in the background).
    await().atMost(Duration.ofSeconds(10)).until(() -> b.mutex("/accounts/1").holder().isEmpty());
    blocker.close();
    try (var lease = both.acquire(Duration.ofSeconds(10))) {
      assertThat(lease.parts()).hasSize(2).allSatisfy(p -> assertThat(p.isValid()).isTrue());
      assertThat(b.mutex("/accounts/1").tryAcquire(Duration.ZERO)).isEmpty();
      assertThat(b.mutex("/accounts/2").tryAcquire(Duration.ZERO)).isEmpty();
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> b.mutex("/accounts/1").holder().isEmpty()
        && b.mutex("/accounts/2").holder().isEmpty());
  }
}
