package dev.baton.barrier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.ClusterTestSupport;
import dev.baton.HelperZk;
import dev.baton.testkit.FaultProxy;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A member arriving just as a round closes (found by the chaos run, seed 20240607: a member passed
 * enter alone). The last leaver lists the members, sees none, and deletes {@code ready}; a member
 * whose node came after that listing, but whose look at {@code ready} came before the delete,
 * passed at once and was inside alone while the round closed under it. Each test slows one side's
 * link, waits (on the server's request count, not on time) until that side's requests are in, and
 * plays the other side with a raw client in the window, a round trip of the slow link wide.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DoubleBarrierClosingRoundTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final Duration SLOW_LINK = Duration.ofSeconds(1);

  private static boolean watchedBy(long session, String path) {
    return cluster.watchesBySession(0).getOrDefault(session, Set.of()).contains(path);
  }

  @Test
  void leave_whenAMemberComesInAfterItsLastListing_waitsForThatMember() throws Exception {
    String path = "/double-barrier/closing-leave";
    FaultProxy proxy = closing(FaultProxy.start(cluster.address(0)));
    Baton leaverClient = baton(proxy.connectString(), Duration.ofSeconds(30));
    DoubleBarrier leaver = leaverClient.doubleBarrier(path, 1);
    leaver.enter(WAIT);
    proxy.delay(SLOW_LINK);
    long before = DoubleBarrierTest.requestsOf(leaverClient.sessionId());

    Future<?> leaving = pool(1).submit(() -> {
      leaver.leave(WAIT);
      return null;
    });
    // Its last listing is on its way (ready's version first, then the children, sent together), or
    // there; its deletes are a slow round trip away.
    await().atMost(WAIT).until(() -> DoubleBarrierTest.requestsOf(leaverClient.sessionId()) - before >= 1);
    try (HelperZk newcomer = HelperZk.connect(cluster.connectString())) {
      // A member arrives, sees ready, and confirms as a Baton member does.
      String node = path + "/" + UUID.randomUUID();
      newcomer.zk().create(node, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
      newcomer.zk().multi(List.of(Op.check(node, -1), Op.setData(path + "/ready", new byte[0], -1)));

      await().atMost(WAIT).until(() -> leaving.isDone() || watchedBy(leaverClient.sessionId(), node));
      assertThat(leaving).as("leave returned while a member that came in as the round closed was inside")
          .isNotDone();
      assertThat(raw.exists(path + "/ready")).as("ready, kept for the member inside").isTrue();

      proxy.restore();
      newcomer.zk().delete(node, -1); // the newcomer leaves
      leaving.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(raw.children(path)).isEmpty();
    }
  }

  @Test
  void enter_whenTheRoundClosesAfterItsLookAtReady_waitsForTheNextRound() throws Exception {
    String path = "/double-barrier-closing-enter";
    // An open round whose last member is leaving: ready is there, no member node.
    raw.zk().create(path, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    raw.zk().create(path + "/ready", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    FaultProxy proxy = closing(FaultProxy.start(cluster.address(0)));
    Baton newcomerClient = baton(proxy.connectString(), Duration.ofSeconds(30));
    DoubleBarrier newcomer = newcomerClient.doubleBarrier(path, 2);
    proxy.delay(SLOW_LINK);
    long before = DoubleBarrierTest.requestsOf(newcomerClient.sessionId());

    Future<?> entering = pool(1).submit(() -> {
      newcomer.enter(WAIT);
      return null;
    });
    // Its look at ready, its create and its listing are on the server; the answers are on their way.
    await().atMost(WAIT).until(() -> DoubleBarrierTest.requestsOf(newcomerClient.sessionId()) - before >= 3);
    raw.zk().delete(path + "/ready", -1); // the last leaver closes the round

    await().atMost(WAIT).until(() -> entering.isDone() || watchedBy(newcomerClient.sessionId(), path + "/ready"));
    assertThat(entering).as("enter returned alone, into a round that had closed").isNotDone();

    proxy.restore();
    DoubleBarrier second = baton().doubleBarrier(path, 2);
    second.enter(WAIT); // the next round: two members
    entering.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(newcomer.isEntered()).isTrue();
  }
}
