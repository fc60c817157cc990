package dev.baton.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.ClusterTestSupport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The tree cache and the node cache on a quiet link: the first load as adds then
 * "initialized", each later create, write and delete heard once and in order, reads from the
 * copy, the watch gone from the server once closed, and bad input refused.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TreeCacheTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private static void create(String path, String data) throws Exception {
    raw.zk().create(path, data == null ? null : data.getBytes(StandardCharsets.UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE,
        CreateMode.PERSISTENT);
  }

  private static void set(String path, String data) throws Exception {
    raw.zk().setData(path, data.getBytes(StandardCharsets.UTF_8), -1);
  }

  @Test
  void start_existingTree_listenerHearsEveryNodeAdded_thenInitializedOnce() throws Exception {
    create("/tc-load", "root");
    create("/tc-load/a", "1");
    create("/tc-load/a/deep", "2");
    create("/tc-load/b", null);
    TreeCache cache = closing(baton().cache("/tc-load"));
    ModelListener listener = new ModelListener();
    cache.addListener(listener);

    assertThat(cache.start().awaitInitialized(WAIT)).isTrue();

    await().atMost(WAIT).until(() -> listener.initialized.get() == 1);
    assertThat(listener.log).last().isEqualTo("initialized");
    assertThat(listener.log).containsExactlyInAnyOrder("added /tc-load=root", "added /tc-load/a=1",
        "added /tc-load/a/deep=2", "added /tc-load/b=", "initialized");
    assertThat(listener.errors).isEmpty();
    assertThat(ServerTree.of(cache)).isEqualTo(ServerTree.of(raw, "/tc-load"));
    assertThat(cache.get("/tc-load/a/deep")).map(CachedNode::dataAsString).contains("2");
    assertThat(cache.get("/tc-load/b")).map(CachedNode::hasData).contains(false);
    assertThat(cache.children("/tc-load").keySet()).containsExactly("a", "b");
    assertThat(cache.get("/elsewhere")).isEmpty();
    assertThat(cache.isSynced()).isTrue();
  }

  /** The root is a cache path like any other (baton tree /, baton console): the whole tree, kept current. */
  @Test
  void theRoot_copiesTheWholeTree_andFollowsIt() throws Exception {
    create("/tc-root", "r");
    create("/tc-root/a", "1");
    TreeCache cache = closing(baton().cache("/"));
    assertThat(cache.start().awaitInitialized(WAIT)).isTrue();

    assertThat(cache.get("/")).isPresent();
    assertThat(cache.children("/")).containsKey("tc-root");
    assertThat(cache.get("/tc-root/a")).map(CachedNode::path).contains("/tc-root/a");
    assertThat(cache.get("/tc-root/a")).map(CachedNode::dataAsString).contains("1");
    assertThat(cache.children("/tc-root").keySet()).containsExactly("a");
    create("/tc-root-later", "2");
    await().atMost(WAIT).until(() -> cache.get("/tc-root-later").isPresent());
    assertThat(cache.nodes()).containsKeys("/", "/tc-root", "/tc-root/a", "/tc-root-later");
  }

  @Test
  void changes_afterStart_areHeardOnceEach_inOrder_andTheCopyFollows() throws Exception {
    TreeCache cache = closing(baton().cache("/tc-changes"));
    ModelListener listener = new ModelListener();
    cache.addListener(listener);
    cache.start().awaitInitialized(WAIT);
    assertThat(cache.size()).as("the root does not exist yet").isZero();

    // Each step waits for the last: a node written twice before the cache reads it is heard
    // once, with its last value (events carry no data), as with Curator's CuratorCache.
    step(listener, () -> create("/tc-changes", "r"));
    step(listener, () -> create("/tc-changes/x", "1"));
    step(listener, () -> set("/tc-changes/x", "2"));
    step(listener, () -> create("/tc-changes/x/y", "3"));
    step(listener, () -> raw.zk().delete("/tc-changes/x/y", -1));
    step(listener, () -> set("/tc-changes/x", "4"));

    assertThat(listener.log).containsExactly("initialized", "added /tc-changes=r", "added /tc-changes/x=1",
        "changed /tc-changes/x=2", "added /tc-changes/x/y=3", "removed /tc-changes/x/y", "changed /tc-changes/x=4");
    assertThat(listener.errors).isEmpty();
    assertThat(cache.get("/tc-changes/x")).map(CachedNode::version).contains(2);

    raw.deleteRecursively("/tc-changes");
    await().atMost(WAIT).until(() -> cache.size() == 0);
    await().atMost(WAIT).until(() -> listener.model.isEmpty());
    assertThat(listener.errors).isEmpty();
  }

  private interface Step {
    void run() throws Exception;
  }

  private static void step(ModelListener listener, Step step) throws Exception {
    step.run();
    await().atMost(WAIT).until(() -> listener.view().equals(ServerTree.of(raw, "/tc-changes")));
  }

  @Test
  void listenerAddedAfterStart_hearsOnlyLaterChanges() throws Exception {
    create("/tc-late", "r");
    TreeCache cache = closing(baton().cache("/tc-late"));
    cache.start().awaitInitialized(WAIT);
    ModelListener late = new ModelListener();
    cache.addListener(late);

    create("/tc-late/n", "v");

    await().atMost(WAIT).until(() -> late.log.contains("added /tc-late/n=v"));
    assertThat(late.log).containsExactly("added /tc-late/n=v");
  }

  @Test
  void nodeCache_followsOneNode_andIgnoresItsChildren() throws Exception {
    NodeCache cache = closing(baton().nodeCache("/tc-node"));
    ModelListener listener = new ModelListener();
    cache.addListener(listener);
    cache.start().awaitInitialized(WAIT);
    assertThat(cache.current()).isEmpty();

    create("/tc-node", "a");
    create("/tc-node/child", "ignored");
    // A cache reads a node after hearing it changed, so two quick writes may be heard as one.
    await().atMost(WAIT).until(() -> listener.log.contains("added /tc-node=a"));
    set("/tc-node", "b");
    await().atMost(WAIT).until(() -> cache.current().map(CachedNode::dataAsString).orElse("").equals("b"));
    raw.deleteRecursively("/tc-node");

    await().atMost(WAIT).until(() -> listener.log.contains("removed /tc-node"));
    assertThat(listener.log).containsExactly("initialized", "added /tc-node=a", "changed /tc-node=b",
        "removed /tc-node");
    assertThat(listener.errors).isEmpty();
    assertThat(cache.current()).isEmpty();
  }

  @Test
  void close_removesTheWatchFromTheServer_andListenersHearNoMore() throws Exception {
    Baton baton = baton();
    TreeCache cache = baton.cache("/tc-close");
    ModelListener listener = new ModelListener();
    cache.addListener(listener);
    cache.start().awaitInitialized(WAIT);
    await().atMost(WAIT).until(() -> cluster.watchesBySession(0).getOrDefault(baton.sessionId(), java.util.Set.of())
        .contains("/tc-close"));

    cache.close();
    cache.close(); // idempotent

    await().atMost(WAIT).until(() -> !cluster.watchesBySession(0).getOrDefault(baton.sessionId(), java.util.Set.of())
        .contains("/tc-close"));
    create("/tc-close", "after");
    TreeCache other = closing(baton.cache("/tc-close"));
    other.start().awaitInitialized(WAIT);
    assertThat(other.get("/tc-close")).isPresent();
    assertThat(listener.log).containsExactly("initialized");
  }

  @Test
  void badInput_isRefusedClearly() {
    Baton baton = baton();
    assertThatThrownBy(() -> baton.cache("no-slash")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cache path");
    assertThatThrownBy(() -> baton.nodeCache("/a//b")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("node cache path");
    TreeCache cache = closing(baton.cache("/tc-bad"));
    assertThatThrownBy(() -> cache.awaitInitialized(WAIT)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("start()");
    cache.start();
    assertThatThrownBy(cache::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("/tc-bad");
    assertThatThrownBy(() -> cache.awaitInitialized(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout");
    assertThatThrownBy(() -> cache.addListener(null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("listener");
  }
}
