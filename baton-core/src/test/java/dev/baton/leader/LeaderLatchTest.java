package dev.baton.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.ClusterTestSupport;
import dev.baton.FencingTokens;
import dev.baton.HelperZk;
import dev.baton.lock.FencedResource;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseLostException;
import dev.baton.lock.LeaseState;
import dev.baton.lock.StaleTokenException;
import dev.baton.testkit.FaultProxy;
import dev.baton.testkit.MutualExclusionChecker;
import dev.baton.testkit.TestCluster;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The leader latch: one leader at a time among valid leaderships (checked with the testkit's
 * checker, entered with each leadership's fencing token) across a leader closing, its client
 * closing, its session expiring and the ensemble's own leader being killed; listeners told;
 * tokens growing; a latch re-joining after expiry; nothing left on the server once all close.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LeaderLatchTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(20);

  private final MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
  private final AtomicLong highestToken = new AtomicLong(Long.MIN_VALUE);
  private final List<String> regainErrors = new CopyOnWriteArrayList<>();

  private LeadershipRecorder recorder(String name) {
    return new LeadershipRecorder(name, checker, highestToken, regainErrors);
  }

  /** A started latch whose recorder hears of it directly; closed after the test. */
  private LeaderLatch latch(Baton client, String path, String id, LeadershipRecorder recorder) {
    LeaderLatch latch = closing(client.leaderLatch(path, id));
    latch.addListener(recorder, Runnable::run);
    latch.start();
    return latch;
  }

  private void assertOneLeaderAtATime() {
    checker.assertNoViolations();
    assertThat(regainErrors).isEmpty();
  }

  @Test
  void singleLatch_leadsWithItsNodesToken_inCuratorsLayout() throws Exception {
    String path = "/latch/single";
    LeadershipRecorder recorder = recorder("a");
    LeaderLatch latch = latch(baton(), path, "worker-ä", recorder);

    assertThat(latch.await(WAIT)).isTrue();
    assertThat(latch.hasLeadership()).isTrue();
    List<String> children = raw.children(path);
    assertThat(children).singleElement().asString().matches("_c_[0-9a-f-]{36}-latch-0000000000");
    String node = path + "/" + children.get(0);
    assertThat(new String(raw.data(node), StandardCharsets.UTF_8)).isEqualTo("worker-ä");
    Lease leadership = latch.leadership().orElseThrow();
    assertThat(leadership.fencingToken()).isEqualTo(FencingTokens.ofNode(raw.czxid(node)));
    assertThat(leadership.path()).isEqualTo(path);
    assertThat(leadership.isValid()).isTrue();
    assertThat(leadership.validUntil()).isAfter(java.time.Instant.now());
    assertThat(latch.leaderId()).contains("worker-ä");
    assertThat(latch.participants()).containsExactly("worker-ä");
    await().atMost(WAIT).until(() -> recorder.events.contains("gained"));

    latch.close();
    assertThat(latch.hasLeadership()).isFalse();
    assertThat(latch.leadership()).isEmpty();
    assertThat(leadership.state()).isEqualTo(LeaseState.RELEASED);
    assertThat(latch.await(Duration.ofSeconds(1))).as("await on a closed latch").isFalse();
    assertThat(recorder.events).containsExactly("gained", "lost:RELEASED");
    awaitChildren(path, 0);
    assertOneLeaderAtATime();
  }

  @Test
  void aFollowerWaitingInAwait_isWokenByItsOwnClose_andByTheLeadersClose() throws Exception {
    String path = "/latch/await-woken";
    LeaderLatch leader = latch(baton(), path, "leader", recorder("leader"));
    assertThat(leader.await(WAIT)).isTrue();
    LeaderLatch closedWhileWaiting = latch(baton(), path, "closed", recorder("closed"));
    LeaderLatch next = latch(baton(), path, "next", recorder("next"));
    awaitChildren(path, 3);

    java.util.concurrent.CompletableFuture<Boolean> closedSays =
        java.util.concurrent.CompletableFuture.supplyAsync(() -> closedWhileWaiting.await(Duration.ofMinutes(5)));
    java.util.concurrent.CompletableFuture<Boolean> nextSays =
        java.util.concurrent.CompletableFuture.supplyAsync(() -> next.await(Duration.ofMinutes(5)));
    closedWhileWaiting.close();
    assertThat(closedSays.get(WAIT.toSeconds(), TimeUnit.SECONDS)).as("closed while waiting").isFalse();
    assertThat(nextSays).isNotDone();

    leader.close();
    assertThat(nextSays.get(WAIT.toSeconds(), TimeUnit.SECONDS)).as("leads once the leader closed").isTrue();
  }

  @Test
  void leaderCloses_nextInLineLeads_listenersTold_tokensGrow() throws Exception {
    String path = "/latch/failover-close";
    List<LeaderLatch> latches = new ArrayList<>();
    List<LeadershipRecorder> recorders = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      recorders.add(recorder("p" + i));
      latches.add(latch(baton(), path, "p" + i, recorders.get(i)));
      awaitChildren(path, i + 1); // queued in this order
    }
    assertThat(latches.get(0).await(WAIT)).isTrue();
    assertThat(latches.get(1).participants()).containsExactly("p0", "p1", "p2");
    assertThat(latches.get(2).leaderId()).contains("p0");
    assertThat(latches.get(1).await(Duration.ofMillis(50))).as("second in line, while p0 leads").isFalse();
    assertThat(latches.get(1).leadership()).isEmpty();

    for (int i = 0; i < 2; i++) {
      latches.get(i).close();
      LeaderLatch next = latches.get(i + 1);
      assertThat(next.await(WAIT)).isTrue();
      assertThat(next.leaderId()).contains("p" + (i + 1));
      int told = i;
      await().atMost(WAIT).until(() -> recorders.get(told).lostOnce() && recorders.get(told + 1).gains() == 1);
    }
    assertThat(recorders.get(0).events).containsExactly("gained", "lost:RELEASED");
    assertThat(recorders.get(1).events).containsExactly("gained", "lost:RELEASED");
    assertThat(recorders.get(1).tokens.get(0)).isGreaterThan(recorders.get(0).tokens.get(0));
    assertThat(recorders.get(2).tokens.get(0)).isGreaterThan(recorders.get(1).tokens.get(0));
    latches.get(2).close();
    awaitChildren(path, 0);
    assertOneLeaderAtATime();
  }

  @Test
  void leadersClientCloses_nextLeads_andNoNodeIsLeft() throws Exception {
    String path = "/latch/failover-client";
    Baton leaderClient = baton();
    LeadershipRecorder first = recorder("first");
    LeadershipRecorder second = recorder("second");
    LeaderLatch leader = latch(leaderClient, path, "first", first);
    assertThat(leader.await(WAIT)).isTrue();
    LeaderLatch follower = latch(baton(), path, "second", second);
    awaitChildren(path, 2);

    leaderClient.close(); // without closing the latch: the session's end removes its node
    assertThat(follower.await(WAIT)).isTrue();
    assertThat(follower.participants()).containsExactly("second");
    await().atMost(WAIT).until(() -> first.lostOnce() && second.gains() == 1);
    assertThat(leader.hasLeadership()).isFalse();
    assertThat(second.tokens.get(0)).isGreaterThan(first.tokens.get(0));
    leader.close(); // harmless once its client is closed
    follower.close();
    awaitChildren(path, 0);
    assertOneLeaderAtATime();
  }

  /**
   * The leader's link goes silent past its session timeout: it must be told it lost leadership
   * before the follower leads; the old leadership's guard fails every transaction; once the link
   * is back the latch re-joins on its new session, behind the new leader.
   */
  @Test
  void leadersSessionExpires_toldBeforeFollowerLeads_thenRejoinsOnNewSession() throws Exception {
    String path = "/latch/expiry";
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0))) {
      Baton leaderClient = baton(proxy.connectString(), Duration.ofSeconds(1));
      LeadershipRecorder first = recorder("first");
      LeadershipRecorder second = recorder("second");
      LeaderLatch leader = latch(leaderClient, path, "first", first);
      assertThat(leader.await(WAIT)).isTrue();
      Lease oldLeadership = leader.leadership().orElseThrow();
      LeaderLatch follower = latch(baton(), path, "second", second);
      awaitChildren(path, 2);
      long oldSession = leaderClient.sessionId();

      proxy.blackhole();
      assertThat(follower.await(WAIT)).isTrue();
      await().atMost(WAIT).until(() -> second.gains() == 1);
      assertThat(first.lostAtNanos()).as("old leader told").isNotZero().isLessThan(second.gainedAtNanos());
      assertThat(first.events.get(1)).isEqualTo("lost:SUSPECT");
      assertThat(oldLeadership.isValid()).isFalse();
      assertThat(second.tokens.get(0)).isGreaterThan(first.tokens.get(0));

      proxy.restore();
      await().atMost(WAIT).until(() -> leaderClient.sessionId() != oldSession
          && follower.participants().equals(List.of("second", "first")));
      assertThat(oldLeadership.state()).isEqualTo(LeaseState.LOST);
      assertThat(leader.hasLeadership()).isFalse();
      String followerNode = nodeOf(follower, path);
      String rejoined = raw.children(path).stream().filter(n -> !n.equals(followerNode)).findFirst().orElseThrow();
      assertThat(raw.zk().exists(path + "/" + rejoined, false).getEphemeralOwner())
          .as("re-joined on the new session").isEqualTo(leaderClient.sessionId());
      // The deposed leader's writes guarded by its old leadership are refused by the ensemble.
      assertThatThrownBy(() -> leaderClient.transaction(Baton.guard(oldLeadership),
          Op.create("/latch-expiry-write", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT)))
          .isInstanceOf(LeaseLostException.class);
      assertThat(raw.exists("/latch-expiry-write")).isFalse();
      // ... and by a resource fenced with the tokens.
      FencedResource<List<String>> log = new FencedResource<>("log", new ArrayList<>());
      log.write(follower.leadership().orElseThrow().fencingToken(), l -> l.add("second"));
      assertThatThrownBy(() -> log.write(oldLeadership.fencingToken(), l -> l.add("first")))
          .isInstanceOf(StaleTokenException.class);

      follower.close();
      assertThat(leader.await(WAIT)).as("the re-joined latch leads after the follower leaves").isTrue();
      await().atMost(WAIT).until(() -> first.gains() == 2);
      assertThat(first.tokens.get(1)).isGreaterThan(second.tokens.get(0));
      leader.close();
      awaitChildren(path, 0);
    }
    assertOneLeaderAtATime();
  }

  /**
   * The leader's lease is its node's: Curator's revocation request written to the node reaches a
   * listener made with {@code makeRevocable}, as the leadership it was asked of, and the lease
   * guards a transaction on the ensemble.
   */
  @Test
  void leadership_isRevocableAndGuardable_asTheLeadersNode() throws Exception {
    String path = "/latch/revocable";
    LeaderLatch latch = latch(baton(), path, "a", recorder("a"));
    assertThat(latch.await(WAIT)).isTrue();
    Lease leadership = latch.leadership().orElseThrow();
    List<Lease> asked = new CopyOnWriteArrayList<>();
    leadership.makeRevocable(asked::add);

    raw.zk().setData(path + "/" + nodeOf(latch, path), "__REVOKE__".getBytes(StandardCharsets.UTF_8), -1);
    await().atMost(WAIT).until(() -> !asked.isEmpty());
    assertThat(asked).containsExactly(leadership);
    assertThat(latch.hasLeadership()).as("nothing is released by itself").isTrue();

    baton().transaction(Baton.guard(leadership),
        Op.create("/latch-revocable-write", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
    assertThat(raw.exists("/latch-revocable-write")).isTrue();
    raw.zk().delete("/latch-revocable-write", -1);
    latch.close();
    awaitChildren(path, 0);
  }

  private static String nodeOf(LeaderLatch latch, String path) throws Exception {
    long token = latch.leadership().orElseThrow().fencingToken();
    for (String child : raw.children(path)) {
      if (FencingTokens.ofNode(raw.czxid(path + "/" + child)) == token) {
        return child;
      }
    }
    throw new AssertionError("no node of " + latch.participantId());
  }

  @Test
  void closingTheLeadershipLease_stepsDown_andRequeuesAtTheBack() throws Exception {
    String path = "/latch/step-down";
    LeadershipRecorder a = recorder("a");
    LeadershipRecorder b = recorder("b");
    LeaderLatch first = latch(baton(), path, "a", a);
    assertThat(first.await(WAIT)).isTrue();
    LeaderLatch second = latch(baton(), path, "b", b);
    awaitChildren(path, 2);

    first.leadership().orElseThrow().close();
    assertThat(second.await(WAIT)).isTrue();
    await().atMost(WAIT).until(() -> second.participants().equals(List.of("b", "a")));
    assertThat(first.hasLeadership()).isFalse();
    second.close();
    assertThat(first.await(WAIT)).isTrue();
    await().atMost(WAIT).until(() -> a.events.size() == 3);
    assertThat(a.events).containsExactly("gained", "lost:RELEASED", "gained");
    first.close();
    awaitChildren(path, 0);
    assertOneLeaderAtATime();
  }

  @Test
  void await_timesOutWhileAnotherLeads_andReturnsOnceItLeads() throws Exception {
    String path = "/latch/await";
    LeaderLatch first = latch(baton(), path, "a", recorder("a"));
    assertThat(first.await(WAIT)).isTrue();
    LeaderLatch second = latch(baton(), path, "b", recorder("b"));
    awaitChildren(path, 2);

    assertThat(second.await(Duration.ZERO)).isFalse();
    assertThat(second.await(Duration.ofMillis(200))).isFalse();
    first.close();
    assertThat(second.await(WAIT)).isTrue();
    assertThat(second.await(Duration.ZERO)).as("already leading: no wait").isTrue();
    second.close();
    awaitChildren(path, 0);
    assertOneLeaderAtATime();
  }

  @Test
  void closingWhileQueued_removesTheNode_andLeavesTheLeaderAlone() throws Exception {
    String path = "/latch/close-queued";
    LeadershipRecorder a = recorder("a");
    LeadershipRecorder b = recorder("b");
    LeaderLatch first = latch(baton(), path, "a", a);
    assertThat(first.await(WAIT)).isTrue();
    LeaderLatch second = latch(baton(), path, "b", b);
    awaitChildren(path, 2);
    second.close();
    awaitChildren(path, 1);
    assertThat(first.hasLeadership()).isTrue();
    assertThat(b.events).isEmpty();
    first.close();
    awaitChildren(path, 0);
  }

  /**
   * The ensemble's leader is killed while latches keep handing leadership over (the leader closes
   * its latch and its client joins again at the back): one leader at a time throughout, tokens
   * growing, hand-overs resume, nothing left at the end.
   */
  @Test
  void ensembleLeaderKilled_oneLeaderAtATime_handOversResume() throws Exception {
    String path = "/latch/ensemble";
    try (TestCluster ensemble = TestCluster.builder().ensemble(3).property("maxSessionTimeout", "30000").start()) {
      int clients = 3;
      List<Baton> batons = new ArrayList<>();
      LeaderLatch[] latches = new LeaderLatch[clients];
      for (int c = 0; c < clients; c++) {
        // Each client prefers a different server, so one of them is connected to the leader.
        batons.add(baton(ensemble.connectString(c) + "," + ensemble.connectString(), Duration.ofSeconds(10)));
      }
      int[] joined = new int[clients];
      for (int c = 0; c < clients; c++) {
        latches[c] = join(batons.get(c), path, c, joined);
      }
      handOvers(latches, batons, path, joined, 10);
      int killed = ensemble.stopLeader();
      handOvers(latches, batons, path, joined, 10);
      ensemble.start(killed);
      ensemble.awaitServing();
      handOvers(latches, batons, path, joined, 5);

      for (LeaderLatch latch : latches) {
        latch.close();
      }
      await().atMost(WAIT).until(() -> HelperZk.childrenOf(ensemble.connectString(), path).isEmpty());
      assertThat(checker.sectionCount()).isGreaterThanOrEqualTo(25);
      assertOneLeaderAtATime();
    }
  }

  private LeaderLatch join(Baton client, String path, int c, int[] joined) {
    String id = "client" + c + "-" + joined[c]++;
    return latch(client, path, id, recorder(id));
  }

  /** {@code count} times: wait for a leader, close its latch, and let its client join again. */
  private void handOvers(LeaderLatch[] latches, List<Baton> batons, String path, int[] joined, int count) {
    for (int i = 0; i < count; i++) {
      long before = checker.sectionCount();
      // The index that satisfied the wait: asking again could find none (a leader suspended meanwhile).
      int leader = await().atMost(Duration.ofSeconds(30)).until(() -> leaderIndex(latches), index -> index >= 0);
      latches[leader].close();
      latches[leader] = join(batons.get(leader), path, leader, joined);
      await().atMost(Duration.ofSeconds(30)).until(() -> checker.sectionCount() > before);
    }
  }

  private static int leaderIndex(LeaderLatch[] latches) {
    for (int i = 0; i < latches.length; i++) {
      if (latches[i].hasLeadership()) {
        return i;
      }
    }
    return -1;
  }

  /**
   * What gaining and losing leadership costs the server, from its packet counter: an uncontended
   * latch sends its create and its listing together (one round trip) and leads; closing sends one
   * delete, not waited for. A follower sends the same two and one watch on the node before it;
   * when that node goes, it leads without sending anything, so a hand-over costs the server one
   * request (the old leader's delete). Counts, not time.
   */
  @Test
  void requests_toGainAndLoseLeadership() throws Exception {
    String path = "/latch/requests";
    // Long sessions keep pings (one per third of the timeout when idle) out of the counts.
    Baton client = baton(cluster.connectString(), Duration.ofSeconds(30));
    Baton other = baton(cluster.connectString(), Duration.ofSeconds(30));
    uncontendedCycle(client, path); // creates the container parent
    uncontendedCycle(client, path);
    long reading = cluster.packetReadingCost(0);
    int cycles = 50;
    long before = cluster.packetsReceived(0);
    for (int i = 0; i < cycles; i++) {
      uncontendedCycle(client, path);
    }
    client.leaderLatch(path, "x").participants(); // one listing, answered after every delete sent before it
    double perCycle = (double) (cluster.packetsReceived(0) - before - 1 - reading) / cycles;
    // Three, and a little more if the server removed the empty container meanwhile (the next
    // create then makes it again).
    assertThat(perCycle).isBetween(2.98, 3.2);

    String handOverPath = "/latch/requests-hand-over";
    Baton[] clients = {client, other};
    LeaderLatch leader = clients[0].leaderLatch(handOverPath, "leader");
    leader.start();
    assertThat(leader.await(WAIT)).isTrue();
    int handOvers = 20;
    long queueing = 0;
    long takeOver = 0;
    for (int i = 1; i <= handOvers; i++) {
      Baton followerClient = clients[i % 2];
      long beforeJoin = cluster.packetsReceived(0);
      LeaderLatch follower = followerClient.leaderLatch(handOverPath, "f" + i);
      follower.start();
      java.util.concurrent.atomic.AtomicInteger polls = new java.util.concurrent.atomic.AtomicInteger();
      await().atMost(WAIT).until(() -> polls.incrementAndGet() > 0 && !cluster.watchesBySession(0)
          .getOrDefault(followerClient.sessionId(), java.util.Set.of()).isEmpty());
      long beforeClose = cluster.packetsReceived(0);
      // Each look at the watches is a four-letter word, which costs what a counter reading does.
      queueing += beforeClose - beforeJoin - reading * (1 + polls.get());
      leader.close();
      assertThat(follower.await(WAIT)).isTrue();
      takeOver += cluster.packetsReceived(0) - beforeClose - reading;
      leader = follower;
    }
    leader.close();
    assertThat((double) queueing / handOvers).as("requests to queue behind a leader").isBetween(3.0, 3.1);
    assertThat((double) takeOver / handOvers).as("requests from the leader's close to the follower leading")
        .isBetween(1.0, 1.1);
  }

  private static void uncontendedCycle(Baton client, String path) {
    LeaderLatch latch = client.leaderLatch(path, "x");
    latch.start();
    assertThat(latch.await(WAIT)).isTrue();
    latch.close();
  }
}
