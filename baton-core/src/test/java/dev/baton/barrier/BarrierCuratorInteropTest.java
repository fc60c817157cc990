package dev.baton.barrier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.ClusterTestSupport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.barriers.DistributedBarrier;
import org.apache.curator.framework.recipes.barriers.DistributedDoubleBarrier;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Baton's barrier and double barrier with Curator's {@code DistributedBarrier} and {@code
 * DistributedDoubleBarrier} on the same paths: either side raises, lowers and waits on one barrier;
 * mixed members enter together and leave together, whichever side creates {@code ready} and
 * whichever member is the lowest; and what each side's members send and leave behind.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BarrierCuratorInteropTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(20);

  @Override
  public Baton baton() {
    return baton(cluster.connectString(), Duration.ofSeconds(30));
  }

  private CuratorFramework curator() throws InterruptedException {
    // No ensemble tracker: its background read of the ensemble's config would fall into the
    // request counts of the cost tests.
    CuratorFramework curator = CuratorFrameworkFactory.builder().connectString(cluster.connectString())
        .sessionTimeoutMs(30_000).connectionTimeoutMs(10_000).retryPolicy(new ExponentialBackoffRetry(50, 5))
        .ensembleTracker(false).build();
    closing(curator);
    curator.start();
    assertThat(curator.blockUntilConnected(10, TimeUnit.SECONDS)).as("curator connected").isTrue();
    return curator;
  }

  private static long sessionOf(CuratorFramework curator) throws Exception {
    return curator.getZookeeperClient().getZooKeeper().getSessionId();
  }

  private static List<String> members(String path) throws Exception {
    // A copy: children() of a path not made yet is the immutable empty list.
    List<String> children = new java.util.ArrayList<>(raw.children(path));
    children.remove("ready");
    return children;
  }

  private static <T> T get(Future<T> future) throws Exception {
    return future.get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  // ---- barrier --------------------------------------------------------------------------------

  @Test
  void curatorSets_batonAndCuratorWait_batonRemoves_bothPass() throws Exception {
    String path = "/interop-barrier/curator-sets";
    DistributedBarrier curatorBarrier = new DistributedBarrier(curator(), path);
    curatorBarrier.setBarrier();
    Barrier barrier = baton().barrier(path);
    assertThat(barrier.isSet()).isTrue();

    CompletableFuture<Void> batonWaiter = barrier.awaitAsync();
    DistributedBarrier curatorWaiting = new DistributedBarrier(curator(), path);
    Future<Boolean> curatorWaiter = pool(1).submit(() -> curatorWaiting.waitOnBarrier(WAIT.toSeconds(), TimeUnit.SECONDS));
    await().atMost(WAIT).until(() -> BarrierTest.watchersOf(path).size() == 2);
    assertThat(batonWaiter).isNotDone();
    assertThat(curatorWaiter).isNotDone();

    barrier.remove();
    batonWaiter.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(get(curatorWaiter)).as("Curator's waiter released").isTrue();
  }

  @Test
  void batonSets_curatorSeesIt_curatorRemoves_batonPasses() throws Exception {
    String path = "/interop-barrier/baton-sets";
    Barrier barrier = baton().barrier(path);
    barrier.set();
    DistributedBarrier curatorBarrier = new DistributedBarrier(curator(), path);
    assertThat(curatorBarrier.waitOnBarrier(100, TimeUnit.MILLISECONDS)).as("Curator sees it up").isFalse();

    Future<Boolean> batonWaiter = pool(1).submit(() -> barrier.await(WAIT));
    await().atMost(WAIT).until(() -> !BarrierTest.watchersOf(path).isEmpty());
    curatorBarrier.removeBarrier();
    assertThat(get(batonWaiter)).isTrue();
    assertThat(barrier.isSet()).isFalse();
  }

  /**
   * Curator waits with {@code exists}, so once the barrier is gone its last check leaves a watch
   * on the missing node on the server (until someone creates it again); Baton's {@code getData}
   * wait leaves none. Two requests for Curator's waiter (before and after the removal), one for
   * Baton's.
   */
  @Test
  void afterRelease_curatorsWaiterLeavesAWatch_batonsDoesNot() throws Exception {
    String path = "/interop-barrier/watch-left";
    Baton setter = baton();
    setter.barrier(path).set();
    CuratorFramework curator = curator();
    long curatorSession = sessionOf(curator);
    Baton waiter = baton();
    long curatorBefore = DoubleBarrierTest.requestsOf(curatorSession);
    long batonBefore = DoubleBarrierTest.requestsOf(waiter.sessionId());
    Future<Boolean> curatorWaiter = pool(1).submit(
        () -> new DistributedBarrier(curator, path).waitOnBarrier(WAIT.toSeconds(), TimeUnit.SECONDS));
    CompletableFuture<Void> batonWaiter = waiter.barrier(path).awaitAsync();
    await().atMost(WAIT).until(() -> BarrierTest.watchersOf(path).size() == 2);

    setter.barrier(path).remove();
    assertThat(get(curatorWaiter)).isTrue();
    batonWaiter.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(DoubleBarrierTest.requestsOf(curatorSession) - curatorBefore).as("Curator's requests").isEqualTo(2);
    assertThat(DoubleBarrierTest.requestsOf(waiter.sessionId()) - batonBefore).as("Baton's requests").isEqualTo(1);
    assertThat(BarrierTest.watchersOf(path)).as("sessions still watching").containsExactly(curatorSession);
  }

  // ---- double barrier -------------------------------------------------------------------------

  @Test
  void curatorMemberCompletesTheCount_releasesTheBatonMember() throws Exception {
    String path = "/interop-double/curator-completes";
    DoubleBarrier baton = baton().doubleBarrier(path, 2);
    Future<?> batonEntering = pool(1).submit(() -> {
      baton.enter(WAIT);
      return null;
    });
    await().atMost(WAIT).until(() -> members(path).size() == 1);
    DistributedDoubleBarrier curatorMember = new DistributedDoubleBarrier(curator(), path, 2);
    assertThat(curatorMember.enter(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    get(batonEntering);

    Future<Boolean> curatorLeaving = pool(1).submit(() -> curatorMember.leave(WAIT.toSeconds(), TimeUnit.SECONDS));
    baton.leave(WAIT);
    assertThat(get(curatorLeaving)).isTrue();
    assertThat(raw.children(path)).isEmpty();
  }

  @Test
  void batonMemberCompletesTheCount_releasesTheCuratorMember() throws Exception {
    String path = "/interop-double/baton-completes";
    DistributedDoubleBarrier curatorMember = new DistributedDoubleBarrier(curator(), path, 2);
    Future<Boolean> curatorEntering = pool(1).submit(() -> curatorMember.enter(WAIT.toSeconds(), TimeUnit.SECONDS));
    await().atMost(WAIT).until(() -> members(path).size() == 1);
    DoubleBarrier baton = baton().doubleBarrier(path, 2);
    baton.enter(WAIT);
    assertThat(get(curatorEntering)).as("Curator's member released by Baton's ready").isTrue();

    Future<Boolean> curatorLeaving = pool(1).submit(() -> curatorMember.leave(WAIT.toSeconds(), TimeUnit.SECONDS));
    baton.leave(WAIT);
    assertThat(get(curatorLeaving)).isTrue();
    assertThat(raw.children(path)).isEmpty();
  }

  /**
   * Two Curator and two Baton members, each in a client of its own, for several rounds on one path
   * (the lowest member, which leaves last, falls on either side by the luck of the UUIDs): none
   * passes enter before all four member nodes exist; a Baton member never gets through leave
   * while the member that leaves last is still in (Curator's may return when only that one's node
   * is left); nothing is left after a round.
   */
  @Test
  void mixedMembers_enterTogether_andLeaveTogether_overSeveralRounds() throws Exception {
    String path = "/interop-double/mixed";
    int n = 4;
    List<DistributedDoubleBarrier> curatorMembers = List.of(
        new DistributedDoubleBarrier(curator(), path, n), new DistributedDoubleBarrier(curator(), path, n));
    List<DoubleBarrier> batonMembers = List.of(baton().doubleBarrier(path, n), baton().doubleBarrier(path, n));
    ExecutorService threads = pool(n);
    for (int round = 0; round < 4; round++) {
      List<Future<Integer>> entering = new ArrayList<>();
      for (DistributedDoubleBarrier member : curatorMembers) {
        entering.add(threads.submit(() -> {
          assertThat(member.enter(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
          return members(path).size();
        }));
      }
      for (DoubleBarrier member : batonMembers) {
        entering.add(threads.submit(() -> {
          member.enter(WAIT);
          return members(path).size();
        }));
      }
      for (Future<Integer> member : entering) {
        assertThat(get(member)).as("round " + round + ": member nodes once through enter").isEqualTo(n);
      }

      // The last to leave alternates between the two sides.
      boolean batonLast = round % 2 == 0;
      List<Callable<Boolean>> leavers = new ArrayList<>();
      Callable<Boolean> last;
      if (batonLast) {
        curatorMembers.forEach(m -> leavers.add(() -> m.leave(WAIT.toSeconds(), TimeUnit.SECONDS)));
        DoubleBarrier early = batonMembers.get(0);
        leavers.add(() -> {
          early.leave(WAIT);
          return true;
        });
        DoubleBarrier late = batonMembers.get(1);
        last = () -> {
          late.leave(WAIT);
          return true;
        };
      } else {
        batonMembers.forEach(m -> leavers.add(() -> {
          m.leave(WAIT);
          return true;
        }));
        DistributedDoubleBarrier early = curatorMembers.get(0);
        leavers.add(() -> early.leave(WAIT.toSeconds(), TimeUnit.SECONDS));
        DistributedDoubleBarrier late = curatorMembers.get(1);
        last = () -> late.leave(WAIT.toSeconds(), TimeUnit.SECONDS);
      }
      List<Future<Boolean>> leaving = new ArrayList<>();
      for (Callable<Boolean> leaver : leavers) {
        leaving.add(threads.submit(leaver));
      }
      // Three are leaving: at most the lowest's node and the last member's remain.
      await().atMost(WAIT).until(() -> members(path).size() <= 2);
      List<Future<Boolean>> batonLeaving = batonLast ? leaving.subList(2, 3) : leaving.subList(0, 2);
      int thisRound = round;
      assertThat(batonLeaving).as("round " + thisRound + ": Baton members wait for the last").noneMatch(Future::isDone);
      assertThat(threads.submit(last).get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
      for (Future<Boolean> member : leaving) {
        assertThat(get(member)).as("round " + round + ": left in time").isTrue();
      }
      await().atMost(WAIT).untilAsserted(() -> assertThat(raw.children(path)).as("round " + thisRound).isEmpty());
    }
  }

  /**
   * What one member alone (members = 1) sends on each side, counted on its own connection.
   * Curator sends four requests to enter (exists, create, list, create ready) and three to leave (a
   * listing and two deletes), waiting for each reply in turn (seven round trips). Baton sends one
   * more each way, so that a round cannot close under a member arriving as it ends: to enter, the
   * same four (the first three together, ready's create as a checked transaction) and a
   * confirmation that touches ready; to leave, ready's version with the listing, then the two
   * deletes. Five round trips in all.
   */
  @Test
  void singleMember_oneRequestMoreEachWay_fewerRoundTrips() throws Exception {
    String path = "/interop-double/cost";
    raw.zk().create(path, new byte[0], org.apache.zookeeper.ZooDefs.Ids.OPEN_ACL_UNSAFE,
        org.apache.zookeeper.CreateMode.PERSISTENT);
    CuratorFramework curator = curator();
    long curatorSession = sessionOf(curator);
    DistributedDoubleBarrier curatorMember = new DistributedDoubleBarrier(curator, path, 1);
    long before = DoubleBarrierTest.requestsOf(curatorSession);
    assertThat(curatorMember.enter(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    long curatorEnter = DoubleBarrierTest.requestsOf(curatorSession) - before;
    before = DoubleBarrierTest.requestsOf(curatorSession);
    assertThat(curatorMember.leave(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    long curatorLeave = DoubleBarrierTest.requestsOf(curatorSession) - before;

    Baton baton = baton();
    DoubleBarrier member = baton.doubleBarrier(path, 1);
    before = DoubleBarrierTest.requestsOf(baton.sessionId());
    member.enter(WAIT);
    long batonEnter = DoubleBarrierTest.requestsOf(baton.sessionId()) - before;
    before = DoubleBarrierTest.requestsOf(baton.sessionId());
    member.leave(WAIT);
    long batonLeave = DoubleBarrierTest.requestsOf(baton.sessionId()) - before;

    assertThat(curatorEnter).as("Curator enter").isEqualTo(4);
    assertThat(curatorLeave).as("Curator leave").isEqualTo(3);
    assertThat(batonEnter).as("Baton enter").isEqualTo(5);
    assertThat(batonLeave).as("Baton leave").isEqualTo(4);
    assertThat(raw.children(path)).isEmpty();
    raw.zk().delete(path, -1);
  }
}
