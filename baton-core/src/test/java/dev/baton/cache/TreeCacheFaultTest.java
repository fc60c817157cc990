package dev.baton.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.ClusterTestSupport;
import dev.baton.ConnectionState;
import dev.baton.testkit.FaultProxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The tree cache across faults, checked against the server's tree: while the link is cut, or the
 * session expires, other clients create, write and delete nodes (whole subtrees too); once the
 * client is back the cache's copy equals the server's tree, and a listener that rebuilt the tree
 * from the events alone (see {@link ModelListener}) holds the same tree with no contradiction in
 * what it heard: no missed change, no phantom.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class TreeCacheFaultTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(20);

  private FaultProxy proxy;

  private Baton behindProxy(Duration sessionTimeout) {
    proxy = closing(FaultProxy.start(cluster.address(0)));
    return baton(proxy.connectString(), sessionTimeout);
  }

  private static void create(String path, String data) throws Exception {
    raw.zk().create(path, data.getBytes(StandardCharsets.UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
  }

  private static void set(String path, String data) throws Exception {
    raw.zk().setData(path, data.getBytes(StandardCharsets.UTF_8), -1);
  }

  private static void awaitEqualToServer(TreeCache cache, ModelListener listener, String root) {
    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(cache.isSynced()).isTrue();
      assertThat(ServerTree.of(cache)).isEqualTo(ServerTree.of(raw, root));
      assertThat(listener.view()).isEqualTo(ServerTree.of(raw, root));
    });
    assertThat(listener.errors).isEmpty();
  }

  /** Changes made by another client while the cache cannot hear them. */
  private static void changeWhileAway(String root) throws Exception {
    set(root + "/keep", "changed-while-away");
    raw.deleteRecursively(root + "/gone");
    create(root + "/new", "n");
    create(root + "/new/deep", "d");
    set(root + "/same", "s"); // written with its own value: a new version, so a change
  }

  private static void seed(String root) throws Exception {
    create(root, "r");
    create(root + "/keep", "k");
    create(root + "/gone", "g");
    create(root + "/gone/child", "c");
    create(root + "/same", "s");
  }

  @Test
  void linkCut_changesMadeMeanwhile_areHeardExactlyOnceBack() throws Exception {
    String root = "/tcf-cut";
    seed(root);
    TreeCache cache = closing(behindProxy(Duration.ofSeconds(20)).cache(root));
    ModelListener listener = new ModelListener();
    cache.addListener(listener);
    cache.start().awaitInitialized(WAIT);
    awaitEqualToServer(cache, listener, root);

    proxy.cut();
    await().atMost(WAIT).until(() -> !cache.isSynced());
    changeWhileAway(root);
    proxy.restore();

    awaitEqualToServer(cache, listener, root);
    assertThat(listener.log).containsSubsequence("initialized", "changed " + root + "/keep=changed-while-away");
    assertThat(listener.log).contains("removed " + root + "/gone", "removed " + root + "/gone/child",
        "added " + root + "/new=n", "added " + root + "/new/deep=d", "changed " + root + "/same=s");
    assertThat(listener.initialized).hasValue(1);
  }

  @Test
  void sessionExpired_changesMadeMeanwhile_areHeardOnTheNewSession() throws Exception {
    String root = "/tcf-expiry";
    seed(root);
    Baton baton = behindProxy(Duration.ofSeconds(1));
    List<ConnectionState> states = new CopyOnWriteArrayList<>();
    baton.addConnectionStateListener(states::add);
    TreeCache cache = closing(baton.cache(root));
    ModelListener listener = new ModelListener();
    cache.addListener(listener);
    cache.start().awaitInitialized(WAIT);
    long firstSession = baton.sessionId();
    // An ephemeral node of the session tells when the ensemble has ended it.
    baton.transaction(org.apache.zookeeper.Op.create("/tcf-expiry-owner", new byte[0],
        ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL));

    proxy.blackhole();
    await().atMost(WAIT).until(() -> !raw.exists("/tcf-expiry-owner"));
    changeWhileAway(root);
    proxy.restore();

    await().atMost(WAIT).until(() -> baton.sessionId() != firstSession && baton.sessionId() != 0);
    assertThat(states).contains(ConnectionState.LOST);
    awaitEqualToServer(cache, listener, root);
    assertThat(listener.log).contains("removed " + root + "/gone", "added " + root + "/new/deep=d",
        "changed " + root + "/keep=changed-while-away");
    // The watch lives on the new session: later changes are heard too.
    set(root + "/keep", "after");
    awaitEqualToServer(cache, listener, root);
    assertThat(cluster.watchesBySession(0).getOrDefault(baton.sessionId(), java.util.Set.of())).contains(root);
  }

  @Test
  void churnAcrossRepeatedCuts_endsEqualToTheServer_withNoContradiction() throws Exception {
    String root = "/tcf-churn";
    create(root, "r");
    TreeCache cache = closing(behindProxy(Duration.ofSeconds(20)).cache(root));
    ModelListener listener = new ModelListener();
    cache.addListener(listener);
    cache.start().awaitInitialized(WAIT);

    AtomicBoolean running = new AtomicBoolean(true);
    ExecutorService pool = pool(1);
    Future<Integer> writer = pool.submit(() -> churn(root, running));
    for (int i = 0; i < 4; i++) {
      int before = listener.log.size();
      await().atMost(WAIT).until(() -> listener.log.size() > before + 5);
      proxy.cut();
      await().atMost(WAIT).until(() -> !cache.isSynced());
      proxy.restore();
    }
    running.set(false);
    assertThat(writer.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isPositive();

    awaitEqualToServer(cache, listener, root);
  }

  /** Random creates, writes and deletes on a small tree (two levels) until told to stop. */
  private static int churn(String root, AtomicBoolean running) throws Exception {
    Random random = new Random(42);
    int ops = 0;
    while (running.get()) {
      String path = root + "/n" + random.nextInt(6) + (random.nextBoolean() ? "" : "/m" + random.nextInt(3));
      try {
        switch (random.nextInt(3)) {
          case 0 -> create(path, "c" + ops);
          case 1 -> set(path, "w" + ops);
          default -> raw.deleteRecursively(path);
        }
        ops++;
      } catch (KeeperException.NoNodeException | KeeperException.NodeExistsException e) {
        // the tree moved on: the next operation
      }
    }
    return ops;
  }
}
