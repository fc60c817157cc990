package dev.baton.barrier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.BatonInterruptedException;
import dev.baton.ClientClosedException;
import dev.baton.ClusterTestSupport;
import dev.baton.ConnectionState;
import dev.baton.testkit.FaultProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The double barrier with every member in a client of its own (its own session): nobody passes
 * enter before all are in, nobody passes leave before all are out, and nothing is left after. Then
 * what the others experience when a member gives up, is closed, or loses its session before or
 * after entering; a member's own connection cut and session expiry; watches left after a timeout;
 * the cost of each step; and bad input.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DoubleBarrierTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String READY = "ready";

  private static List<String> members(String path) throws Exception {
    List<String> children = raw.children(path);
    children.remove(READY);
    return children;
  }

  private static void awaitMembers(String path, int count) {
    await().atMost(WAIT).untilAsserted(() -> assertThat(members(path)).as("members of " + path).hasSize(count));
  }

  /** Enters on a pool thread; the future answers how many member nodes it saw once through. */
  private static Future<Integer> enter(ExecutorService threads, DoubleBarrier member) {
    return threads.submit(() -> {
      member.enter(WAIT);
      return members(member.path()).size();
    });
  }

  private static Future<?> leave(ExecutorService threads, DoubleBarrier member) {
    return threads.submit(() -> {
      member.leave(WAIT);
      return null;
    });
  }

  private static <T> T get(Future<T> future) throws Exception {
    return future.get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  // ---- contract -------------------------------------------------------------------------------

  /**
   * Scenario 7's counting barrier: five participants, each in its own process (client), start
   * together: none gets through enter before the fifth member node exists. Then they finish
   * together: none gets through leave while another is still in. Nothing is left after.
   */
  @Test
  void fiveMembers_enterTogether_leaveTogether_andLeaveNothingBehind() throws Exception {
    String path = "/double-barrier/together";
    int n = 5;
    ExecutorService threads = pool(n);
    List<DoubleBarrier> barriers = new ArrayList<>();
    List<Future<Integer>> entering = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      DoubleBarrier member = baton().doubleBarrier(path, n);
      barriers.add(member);
      if (i < n - 1) {
        entering.add(enter(threads, member));
      }
    }
    awaitMembers(path, n - 1);
    assertThat(entering).noneMatch(Future::isDone);
    assertThat(raw.exists(path + "/" + READY)).isFalse();

    entering.add(enter(threads, barriers.get(n - 1)));
    for (Future<Integer> member : entering) {
      assertThat(get(member)).as("member nodes seen once through enter").isEqualTo(n);
    }
    assertThat(raw.exists(path + "/" + READY)).isTrue();
    assertThat(barriers).allMatch(DoubleBarrier::isEntered);

    List<Future<?>> leaving = new ArrayList<>();
    for (int i = 0; i < n - 1; i++) {
      leaving.add(leave(threads, barriers.get(i)));
    }
    // Four are leaving; one member node of theirs (the lowest) stays until the last has left.
    await().atMost(WAIT).untilAsserted(() -> assertThat(members(path)).hasSizeLessThanOrEqualTo(2));
    assertThat(leaving).noneMatch(Future::isDone);
    barriers.get(n - 1).leave(WAIT);
    for (Future<?> member : leaving) {
      get(member);
    }
    assertThat(raw.children(path)).as("nodes left under " + path).isEmpty();
    assertThat(barriers).noneMatch(DoubleBarrier::isEntered);
    assertThat(cluster.metrics(0).get("zk_watch_count")).as("watches left").isEqualTo("0");
  }

  @Test
  void memberNodes_areEphemeralChildrenNamedByUuid_andReadyIsPersistent() throws Exception {
    String path = "/double-barrier/shape";
    Baton baton = baton();
    DoubleBarrier member = baton.doubleBarrier(path, 1);
    member.enter(WAIT);
    List<String> nodes = members(path);
    assertThat(nodes).hasSize(1);
    assertThat(java.util.UUID.fromString(nodes.get(0)).toString()).isEqualTo(nodes.get(0));
    Stat memberStat = raw.zk().exists(path + "/" + nodes.get(0), false);
    assertThat(memberStat.getEphemeralOwner()).isEqualTo(baton.sessionId());
    assertThat(raw.zk().exists(path + "/" + READY, false).getEphemeralOwner()).isZero();
    member.leave(WAIT);
    assertThat(raw.children(path)).isEmpty();
  }

  @Test
  void lateMember_passesAtOnce_whileTheBarrierIsOpen() throws Exception {
    String path = "/double-barrier/late";
    DoubleBarrier first = baton().doubleBarrier(path, 2);
    DoubleBarrier second = baton().doubleBarrier(path, 2);
    ExecutorService threads = pool(2);
    Future<Integer> a = enter(threads, first);
    second.enter(WAIT);
    get(a);
    DoubleBarrier third = baton().doubleBarrier(path, 2);
    third.enter(Duration.ofSeconds(5)); // the threshold is reached: no wait
    assertThat(members(path)).hasSize(3);
    List<Future<?>> leaving = List.of(leave(threads, first), leave(threads, second));
    third.leave(WAIT);
    for (Future<?> member : leaving) {
      get(member);
    }
    assertThat(raw.children(path)).isEmpty();
  }

  @Test
  void samePath_servesSeveralRounds() throws Exception {
    String path = "/double-barrier/rounds";
    DoubleBarrier a = baton().doubleBarrier(path, 2);
    DoubleBarrier b = baton().doubleBarrier(path, 2);
    ExecutorService threads = pool(2);
    for (int round = 0; round < 3; round++) {
      Future<Integer> entering = enter(threads, a);
      awaitMembers(path, 1);
      assertThat(entering).as("round " + round + ": alone").isNotDone();
      b.enter(WAIT);
      assertThat(get(entering)).isEqualTo(2);
      Future<?> leaving = leave(threads, a);
      b.leave(WAIT);
      get(leaving);
      assertThat(raw.children(path)).as("round " + round).isEmpty();
    }
  }

  // ---- giving up ------------------------------------------------------------------------------

  /**
   * A member that times out in enter deletes its node, so it is never counted: the next member
   * to come does not open the barrier with it, and no watch of it stays on the server.
   */
  @Test
  void enter_timesOut_deletesItsNode_isNotCounted_andLeavesNoWatch() throws Exception {
    String path = "/double-barrier/enter-timeout";
    Baton quitterClient = baton();
    DoubleBarrier quitter = quitterClient.doubleBarrier(path, 2);
    assertThatThrownBy(() -> quitter.enter(Duration.ofMillis(300)))
        .isInstanceOf(BarrierTimeoutException.class)
        .hasMessageContaining(path).hasMessageContaining("2 members").hasMessageContaining("in at the last look")
        .satisfies(e -> assertThat(((BarrierTimeoutException) e).timeout()).isEqualTo(Duration.ofMillis(300)))
        .satisfies(e -> assertThat(e.getStackTrace()[0].getClassName()).doesNotContain("Scheduled"));
    assertThat(quitter.isEntered()).isFalse();
    assertThat(members(path)).isEmpty();
    await().atMost(WAIT).until(() -> !cluster.watchesBySession(0).containsKey(quitterClient.sessionId()));

    DoubleBarrier next = baton().doubleBarrier(path, 2);
    assertThatThrownBy(() -> next.enter(Duration.ofMillis(300))).isInstanceOf(BarrierTimeoutException.class);
    assertThat(raw.exists(path + "/" + READY)).isFalse();

    // The one that gave up may try again, and gets in with a partner.
    ExecutorService threads = pool(1);
    Future<Integer> again = enter(threads, quitter);
    awaitMembers(path, 1);
    next.enter(WAIT);
    assertThat(get(again)).isEqualTo(2);
    Future<?> leaving = leave(threads, quitter);
    next.leave(WAIT);
    get(leaving);
    assertThat(raw.children(path)).isEmpty();
  }

  /**
   * A member that times out in leave has left all the same (its node is deleted even when it was
   * the lowest) and deletes ready, as Curator's members do; the one still in leaves alone.
   */
  @Test
  void leave_timesOut_deletesItsNodeAndReady_andTheOtherLeavesAlone() throws Exception {
    String path = "/double-barrier/leave-timeout";
    DoubleBarrier a = baton().doubleBarrier(path, 2);
    DoubleBarrier b = baton().doubleBarrier(path, 2);
    Future<Integer> entering = enter(pool(1), a);
    b.enter(WAIT);
    get(entering);

    assertThatThrownBy(() -> a.leave(Duration.ofMillis(300)))
        .isInstanceOf(BarrierTimeoutException.class)
        .hasMessageContaining(path).hasMessageContaining("still in");
    assertThat(a.isEntered()).isFalse();
    awaitMembers(path, 1);
    await().atMost(WAIT).until(() -> !raw.exists(path + "/" + READY));
    b.leave(WAIT);
    assertThat(raw.children(path)).isEmpty();
    assertThat(cluster.metrics(0).get("zk_watch_count")).isEqualTo("0");
  }

  @Test
  void enter_interrupted_throwsKeepsTheFlag_andDeletesItsNode() throws Exception {
    String path = "/double-barrier/interrupt";
    DoubleBarrier member = baton().doubleBarrier(path, 2);
    CountDownLatch flagKept = new CountDownLatch(1);
    List<Throwable> thrown = new java.util.concurrent.CopyOnWriteArrayList<>();
    Thread thread = new Thread(() -> {
      try {
        member.enter();
      } catch (Throwable t) {
        thrown.add(t);
        if (Thread.currentThread().isInterrupted()) {
          flagKept.countDown();
        }
      }
    });
    thread.start();
    awaitMembers(path, 1);
    thread.interrupt();
    assertThat(flagKept.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    assertThat(thrown).singleElement().isInstanceOf(BatonInterruptedException.class);
    awaitMembers(path, 0);
    assertThat(member.isEntered()).isFalse();
  }

  // ---- members that die -----------------------------------------------------------------------

  /**
   * A member's client is closed before the count is reached: its node goes with the session, so
   * it no longer counts. The others keep waiting; one more member is needed to open the barrier.
   */
  @Test
  void memberClosedBeforeTheCount_isNotCounted_othersWaitForAReplacement() throws Exception {
    String path = "/double-barrier/closed-before";
    ExecutorService threads = pool(3);
    Future<Integer> a = enter(threads, baton().doubleBarrier(path, 3));
    Baton dying = Baton.builder().connectString(cluster.connectString()).build();
    Future<Integer> doomed = enter(threads, dying.doubleBarrier(path, 3));
    awaitMembers(path, 2);
    dying.close();
    assertThatThrownBy(() -> get(doomed)).hasCauseInstanceOf(ClientClosedException.class);
    awaitMembers(path, 1);

    Future<Integer> c = enter(threads, baton().doubleBarrier(path, 3));
    awaitMembers(path, 2);
    assertThat(a).as("two members of three").isNotDone();
    assertThat(c).isNotDone();
    DoubleBarrier replacement = baton().doubleBarrier(path, 3);
    replacement.enter(WAIT);
    assertThat(get(a)).isEqualTo(3);
    assertThat(get(c)).isEqualTo(3);
  }

  /** Closed after entering, without leave: it counts as having left, and the rest leave without it. */
  @Test
  void memberClosedAfterEntering_othersLeaveWithoutIt() throws Exception {
    String path = "/double-barrier/closed-after";
    ExecutorService threads = pool(3);
    DoubleBarrier a = baton().doubleBarrier(path, 3);
    DoubleBarrier b = baton().doubleBarrier(path, 3);
    Baton dying = Baton.builder().connectString(cluster.connectString()).build();
    List<Future<Integer>> entering = List.of(enter(threads, a), enter(threads, b));
    dying.doubleBarrier(path, 3).enter(WAIT);
    for (Future<Integer> member : entering) {
      get(member);
    }
    Future<?> leavingA = leave(threads, a);
    Future<?> leavingB = leave(threads, b);
    await().atMost(WAIT).until(() -> members(path).size() <= 2);
    assertThat(leavingA).isNotDone();
    assertThat(leavingB).isNotDone();

    dying.close(); // never leaves
    get(leavingA);
    get(leavingB);
    assertThat(raw.children(path)).isEmpty();
  }

  /**
   * A member's session expires after it entered: the others see it as having left and leave;
   * its own leave, once it has a new session, has nothing to delete and returns.
   */
  @Test
  void memberSessionExpiredAfterEntering_othersLeave_andItsOwnLeaveReturns() throws Exception {
    String path = "/double-barrier/expired-after";
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0))) {
      ExecutorService threads = pool(3);
      DoubleBarrier a = baton().doubleBarrier(path, 3);
      DoubleBarrier b = baton().doubleBarrier(path, 3);
      Baton fragile = baton(proxy.connectString(), Duration.ofSeconds(1));
      DoubleBarrier c = fragile.doubleBarrier(path, 3);
      List<Future<Integer>> entering = List.of(enter(threads, a), enter(threads, b));
      c.enter(WAIT);
      for (Future<Integer> member : entering) {
        get(member);
      }
      Future<?> leavingA = leave(threads, a);
      Future<?> leavingB = leave(threads, b);
      await().atMost(WAIT).until(() -> members(path).size() <= 2);
      assertThat(leavingA).isNotDone();

      long oldSession = fragile.sessionId();
      proxy.blackhole();
      get(leavingA);
      get(leavingB);
      proxy.restore();
      await().atMost(WAIT).until(() -> fragile.sessionId() != oldSession && fragile.sessionId() != 0);
      c.leave(WAIT);
      assertThat(raw.children(path)).isEmpty();
    }
  }

  // ---- faults of this member ------------------------------------------------------------------

  /**
   * The barrier opens while an entering member's connection is cut: once it reconnects to the
   * same session it must see ready (the client sets its watch again and it checks once more).
   */
  @Test
  void enteringAcrossConnectionCut_passesWhenTheBarrierOpenedMeanwhile() throws Exception {
    String path = "/double-barrier/cut";
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0))) {
      Baton cutClient = baton(proxy.connectString(), Duration.ofSeconds(20));
      long session = cutClient.sessionId();
      DoubleBarrier cut = cutClient.doubleBarrier(path, 2);
      Future<Integer> entering = enter(pool(1), cut);
      awaitMembers(path, 1);
      await().atMost(WAIT).until(() -> BarrierTest.watchersOf(path + "/" + READY).contains(session));

      proxy.cut();
      await().atMost(WAIT).until(() -> cutClient.connectionState() == ConnectionState.SUSPENDED);
      DoubleBarrier other = baton().doubleBarrier(path, 2);
      other.enter(WAIT);
      assertThat(entering).isNotDone();
      proxy.restore();

      assertThat(get(entering)).isEqualTo(2);
      assertThat(cutClient.sessionId()).isEqualTo(session);
      Future<?> leaving = leave(pool(1), cut);
      other.leave(WAIT);
      get(leaving);
      assertThat(raw.children(path)).isEmpty();
    }
  }

  /**
   * An entering member's session expires: its node goes with the session, so it enters again on
   * the new session with a new node, and passes with the next member.
   */
  @Test
  void enteringAcrossSessionExpiry_entersAgainOnTheNewSession() throws Exception {
    String path = "/double-barrier/expiry";
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0))) {
      Baton fragile = baton(proxy.connectString(), Duration.ofSeconds(1));
      long oldSession = fragile.sessionId();
      DoubleBarrier member = fragile.doubleBarrier(path, 2);
      Future<Integer> entering = enter(pool(1), member);
      awaitMembers(path, 1);

      proxy.blackhole();
      awaitMembers(path, 0); // the session ended on the server, the node with it
      proxy.restore();
      await().atMost(WAIT).until(() -> fragile.sessionId() != oldSession && fragile.sessionId() != 0);
      awaitMembers(path, 1);
      String node = members(path).get(0);
      assertThat(raw.zk().exists(path + "/" + node, false).getEphemeralOwner()).isEqualTo(fragile.sessionId());
      assertThat(entering).isNotDone();

      DoubleBarrier other = baton().doubleBarrier(path, 2);
      other.enter(WAIT);
      assertThat(get(entering)).isEqualTo(2);
      Future<?> leaving = leave(pool(1), member);
      other.leave(WAIT);
      get(leaving);
      assertThat(raw.children(path)).isEmpty();
    }
  }

  // ---- cost -----------------------------------------------------------------------------------

  private static void persistent(String path) throws Exception {
    raw.zk().create(path, new byte[0], org.apache.zookeeper.ZooDefs.Ids.OPEN_ACL_UNSAFE,
        org.apache.zookeeper.CreateMode.PERSISTENT);
    closingRaw(path);
  }

  /** Deletes {@code path} after the test. */
  private static void closingRaw(String path) {
    CLEANUP.add(path);
  }

  private static final List<String> CLEANUP = new java.util.concurrent.CopyOnWriteArrayList<>();

  @org.junit.jupiter.api.AfterEach
  void deletePersistentPaths() throws Exception {
    for (String path : CLEANUP) {
      raw.deleteRecursively(path);
    }
    CLEANUP.clear();
  }

  /**
   * Requests one session has sent, from the server's {@code cons} listing (packets received on
   * its connection), so that other clients' traffic does not count.
   */
  static long requestsOf(long sessionId) {
    java.util.regex.Matcher connection = java.util.regex.Pattern
        .compile("recved=(\\d+),sent=\\d+,sid=0x([0-9a-f]+)").matcher(cluster.fourLetterWord(0, "cons"));
    while (connection.find()) {
      if (Long.parseUnsignedLong(connection.group(2), 16) == sessionId) {
        return Long.parseLong(connection.group(1));
      }
    }
    throw new AssertionError("no connection of session 0x" + Long.toHexString(sessionId));
  }

  /**
   * Requests of one round of two members. The first to enter sends the watch on ready, the
   * create and the listing together (one round trip); the one completing the count sends the same
   * three, then the transaction creating ready. Leaving costs each member three to five requests
   * (see {@code DoubleBarrier}): a listing, its node's delete, a watch on the member it waits for,
   * a second listing, and ready's delete, the last member's two deletes sent together.
   */
  @Test
  void roundOfTwo_requestCounts() throws Exception {
    String path = "/double-barrier/cost";
    Baton first = baton(cluster.connectString(), Duration.ofSeconds(30));
    Baton second = baton(cluster.connectString(), Duration.ofSeconds(30));
    DoubleBarrier a = first.doubleBarrier(path, 2);
    DoubleBarrier b = second.doubleBarrier(path, 2);
    persistent(path); // a container could be removed between two rounds, adding requests
    long a0 = requestsOf(first.sessionId());
    long b0 = requestsOf(second.sessionId());
    Future<Integer> entering = enter(pool(1), a);
    // Its three requests are in before the second member starts, so the second completes the count.
    await().atMost(WAIT).until(() -> requestsOf(first.sessionId()) - a0 >= 3);
    b.enter(WAIT);
    get(entering);
    // One more each: having seen ready, each member confirms (touches ready, checking its node).
    assertThat(requestsOf(first.sessionId()) - a0).as("first to enter").isEqualTo(4);
    assertThat(requestsOf(second.sessionId()) - b0).as("the one completing the count").isEqualTo(5);

    long a1 = requestsOf(first.sessionId());
    long b1 = requestsOf(second.sessionId());
    Future<?> leaving = leave(pool(1), a);
    b.leave(WAIT);
    get(leaving);
    long aLeave = requestsOf(first.sessionId()) - a1;
    long bLeave = requestsOf(second.sessionId()) - b1;
    // Each listing comes with a read of ready's version (one or two listings each).
    assertThat(aLeave).as("first leaving").isBetween(4L, 7L);
    assertThat(bLeave).as("second leaving").isBetween(4L, 7L);
    assertThat(raw.children(path)).isEmpty();
    assertThat(cluster.metrics(0).get("zk_watch_count")).isEqualTo("0");
  }

  /**
   * A member alone (members = 1): enter is one round trip, the transaction that creates ready and
   * the one that confirms; leave two round trips (ready's version and the listing, then the two
   * deletes).
   */
  @Test
  void singleMember_requestCounts() throws Exception {
    String path = "/double-barrier/cost-single";
    Baton baton = baton(cluster.connectString(), Duration.ofSeconds(30));
    persistent(path);
    DoubleBarrier member = baton.doubleBarrier(path, 1);
    long before = requestsOf(baton.sessionId());
    member.enter(WAIT);
    assertThat(requestsOf(baton.sessionId()) - before).as("enter").isEqualTo(5);
    before = requestsOf(baton.sessionId());
    member.leave(WAIT);
    assertThat(requestsOf(baton.sessionId()) - before).as("leave").isEqualTo(4);
  }

  // ---- bad input ------------------------------------------------------------------------------

  @Test
  void badInput_andMisuse_areRejectedNamingTheArgument() throws Exception {
    Baton baton = baton();
    Set<String> before = raw.tree();
    assertThatThrownBy(() -> baton.doubleBarrier("/double-barrier/bad", 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("members").hasMessageContaining("0");
    assertThatThrownBy(() -> baton.doubleBarrier("/double-barrier/bad", -3))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("members").hasMessageContaining("-3");
    assertThatThrownBy(() -> baton.doubleBarrier("no-slash", 2))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("double barrier path 'no-slash'");
    assertThatThrownBy(() -> baton.doubleBarrier("/a//b", 2))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("double barrier path '/a//b'");
    assertThatThrownBy(() -> baton.doubleBarrier(null, 2))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("double barrier path");

    DoubleBarrier member = baton.doubleBarrier("/double-barrier/bad", 1);
    assertThatThrownBy(member::leave)
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("leave()").hasMessageContaining("not entered");
    assertThatThrownBy(() -> member.enter(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout");
    assertThatThrownBy(() -> member.leave(null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("timeout");
    assertThat(raw.tree()).as("nothing written").isEqualTo(before);

    member.enter(WAIT);
    assertThatThrownBy(member::enter)
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("enter()").hasMessageContaining("entered already");
    member.leave(WAIT);
    assertThatThrownBy(member::leave).isInstanceOf(IllegalStateException.class);
    baton.close();
    assertThatThrownBy(member::enter).isInstanceOf(ClientClosedException.class);
  }

  @Test
  void clientClosedWhileEntering_failsTheEnter() throws Exception {
    String path = "/double-barrier/close-entering";
    Baton closing = Baton.builder().connectString(cluster.connectString()).build();
    Future<Integer> entering = enter(pool(1), closing.doubleBarrier(path, 2));
    awaitMembers(path, 1);
    closing.close();
    assertThatThrownBy(() -> get(entering)).isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(ClientClosedException.class);
    awaitMembers(path, 0);
  }
}
