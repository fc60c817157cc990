package dev.baton.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.ClusterTestSupport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Baton's tree cache beside Curator's {@code CuratorCache} on the same path and the same steps:
 * both hear the same events in the same order (a write that leaves the data as it was is still a
 * change, as in Curator), and hold the same nodes with the same data and versions.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TreeCacheCuratorTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(10);

  @Test
  void sameSteps_batonAndCuratorCaches_hearTheSameEvents_andHoldTheSameNodes() throws Exception {
    String root = "/tc-curator";
    raw.zk().create(root, bytes("r"), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    raw.zk().create(root + "/pre", bytes("p"), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);

    List<String> curatorEvents = new CopyOnWriteArrayList<>();
    CuratorFramework curator = CuratorFrameworkFactory.builder().connectString(cluster.connectString())
        .sessionTimeoutMs(10_000).retryPolicy(new ExponentialBackoffRetry(50, 5)).ensembleTracker(false).build();
    closing(curator);
    curator.start();
    CuratorCache curatorCache = closing(CuratorCache.build(curator, root));
    curatorCache.listenable().addListener(CuratorCacheListener.builder()
        .forCreates(node -> curatorEvents.add("added " + node.getPath() + "=" + text(node.getData())))
        .forChanges((before, after) -> curatorEvents.add("changed " + after.getPath() + "=" + text(after.getData())))
        .forDeletes(node -> curatorEvents.add("removed " + node.getPath()))
        .forInitialized(() -> curatorEvents.add("initialized"))
        .build());
    curatorCache.start();

    TreeCache cache = closing(baton().cache(root));
    ModelListener baton = new ModelListener();
    cache.addListener(baton);
    cache.start();
    await().atMost(WAIT).until(() -> curatorEvents.contains("initialized") && baton.initialized.get() == 1);

    List<Step> steps = List.of(
        () -> raw.zk().create(root + "/a", bytes("1"), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT),
        () -> raw.zk().setData(root + "/a", bytes("2"), -1),
        () -> raw.zk().setData(root + "/a", bytes("2"), -1),
        () -> raw.zk().create(root + "/a/b", bytes("3"), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT),
        () -> raw.deleteRecursively(root + "/a"),
        () -> raw.zk().setData(root, bytes("r2"), -1));
    for (Step step : steps) {
      int curatorBefore = curatorEvents.size();
      int batonBefore = baton.log.size();
      step.run();
      await().atMost(WAIT).until(() -> curatorEvents.size() > curatorBefore && baton.log.size() > batonBefore
          && ServerTree.of(cache).equals(ServerTree.of(raw, root)));
    }
    await().atMost(WAIT).until(() -> curatorEvents.size() == baton.log.size());

    // The order of the first load's adds is each cache's own; after it, the same sequence.
    assertThat(baton.log.subList(0, 3)).containsExactlyInAnyOrderElementsOf(curatorEvents.subList(0, 3));
    assertThat(baton.log.subList(3, baton.log.size())).isEqualTo(curatorEvents.subList(3, curatorEvents.size()));
    assertThat(baton.errors).isEmpty();
    assertThat(curatorCache.stream().collect(java.util.stream.Collectors.toMap(node -> node.getPath(),
        node -> text(node.getData()) + "@" + node.getStat().getVersion())))
        .isEqualTo(ServerTree.of(cache));
  }

  private interface Step {
    void run() throws Exception;
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(byte[] data) {
    return data == null ? "" : new String(data, StandardCharsets.UTF_8);
  }
}
