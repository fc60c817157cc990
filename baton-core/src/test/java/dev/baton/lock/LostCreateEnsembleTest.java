package dev.baton.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.ConnectionState;
import dev.baton.HelperZk;
import dev.baton.testkit.FaultProxy;
import dev.baton.testkit.TestCluster;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A create whose reply is lost, on a 3-server ensemble: the waiter reconnects to another
 * follower than the one its create went through. That server may not have applied the create
 * yet (it is still being committed), so a listing there could miss the node, and a second node
 * would be created while the first blocks the queue for the session's life. The search for the
 * node is therefore preceded by a {@code sync}, sent in the same round trip. The in-JVM ensemble
 * cannot hold a follower back on purpose, so the test counts the requests the session sent on its
 * new connection (the server's {@code cons} word) instead of waiting for the rare lag.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LostCreateEnsembleTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static TestCluster cluster;

  @BeforeAll
  static void startCluster() {
    cluster = TestCluster.builder().ensemble(3).property("maxSessionTimeout", "30000").start();
  }

  @AfterAll
  static void stopCluster() {
    cluster.close();
  }

  @Test
  void lostCreateReply_reconnectedToAnotherFollower_syncsBeforeTheSearch_andKeepsOneNode() throws Exception {
    String path = "/ensemble/lost-create";
    int leader = cluster.leader();
    int first = (leader + 1) % 3;
    int second = (leader + 2) % 3;
    try (HelperZk raw = HelperZk.connect(cluster.connectString(leader));
        FaultProxy toFirst = FaultProxy.start(cluster.address(first));
        FaultProxy toSecond = FaultProxy.start(cluster.address(second))) {
      makePath(raw, path);
      toSecond.cut(); // so that the client connects through the first follower
      Baton baton = Baton.builder().connectString(toFirst.connectString() + "," + toSecond.connectString())
          .sessionTimeout(Duration.ofSeconds(30)).connectionTimeout(Duration.ofSeconds(20)).build();
      try (baton) {
        List<ConnectionState> states = new CopyOnWriteArrayList<>();
        baton.addConnectionStateListener(states::add);
        toSecond.restore();

        toFirst.delay(Duration.ofMillis(500));
        CompletableFuture<Lease> pending = baton.mutex(path).acquireAsync();
        await().atMost(WAIT).until(() -> raw.children(path).size() == 1);
        toFirst.cut(); // the create's reply is still in the delay line: dropped
        await().atMost(WAIT).until(() -> states.contains(ConnectionState.SUSPENDED));

        Lease lease = pending.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        long secondRequests = requestsReceived(second, baton.sessionId());
        assertThat(raw.children(path)).hasSize(1);
        assertThat(baton.mutex(path).holder().orElseThrow().fencingToken()).isEqualTo(lease.fencingToken());
        // On the connection to the second follower: the connect, the sync, the listing, the
        // ownership check (a ping would add one; the session is not idle long enough for one).
        assertThat(secondRequests).as("requests the session sent through the second follower").isEqualTo(4);
        lease.close();
        await().atMost(WAIT).until(() -> raw.children(path).isEmpty());
      }
    }
  }

  /** What {@code server}'s {@code cons} word says the connection of {@code sessionId} received. */
  private static long requestsReceived(int server, long sessionId) {
    String session = "sid=0x" + Long.toHexString(sessionId) + ",";
    String connection = cluster.fourLetterWord(server, "cons").lines().filter(line -> line.contains(session))
        .findFirst().orElseThrow(() -> new AssertionError("no connection of " + session + " on " + server));
    java.util.regex.Matcher recved = java.util.regex.Pattern.compile("recved=(\\d+)").matcher(connection);
    assertThat(recved.find()).as(connection).isTrue();
    return Long.parseLong(recved.group(1));
  }

  private static void makePath(HelperZk raw, String path) throws Exception {
    for (int slash = path.indexOf('/', 1); ; slash = path.indexOf('/', slash + 1)) {
      String prefix = slash < 0 ? path : path.substring(0, slash);
      try {
        raw.zk().create(prefix, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      } catch (KeeperException.NodeExistsException e) {
        // made before
      }
      if (slash < 0) {
        return;
      }
    }
  }
}
