package dev.baton.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.BatonException;
import dev.baton.ClientClosedException;
import dev.baton.ClusterTestSupport;
import dev.baton.lock.Lease;
import dev.baton.testkit.FaultProxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The config center: each write says what it found (the mistakes of hand-written config centers
 * that SCENARIOS.md lists: a create of an existing key only logged, an update of a missing key
 * silently dropped, writes that ignore the version), nested keys and folders, copies of two
 * clients following each other, listeners, and the copy after a cut link, after session expiry,
 * and after close (no watch left on the server).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConfigCenterTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(10);

  @BeforeEach
  void noWatchesOfEarlierTests() {
    awaitWatchCount(0);
  }

  private ConfigCenter config(Baton baton, String prefix) {
    return closing(ConfigCenter.open(baton, prefix));
  }

  // ---- create, update, set -------------------------------------------------------------------

  @Test
  void create_isInTheWritersCopyWhenItReturns_andSeenByAnotherClientsCopy() throws Exception {
    ConfigCenter writer = config(baton(), "/cfg-create");
    ConfigCenter reader = config(baton(), "/cfg-create");

    ConfigEntry created = writer.create("db/url", "jdbc:postgresql://db1/shop");

    assertThat(created).isEqualTo(new ConfigEntry("db/url", "jdbc:postgresql://db1/shop", 0));
    assertThat(writer.get("db/url")).as("read-your-writes, no wait").contains("jdbc:postgresql://db1/shop");
    assertThat(new String(raw.data("/cfg-create/db/url"), StandardCharsets.UTF_8))
        .isEqualTo("jdbc:postgresql://db1/shop");
    await().atMost(WAIT).untilAsserted(() ->
        assertThat(reader.entry("db/url")).contains(new ConfigEntry("db/url", "jdbc:postgresql://db1/shop", 0)));
  }

  @Test
  void create_existingKey_failsNamingKeyAndPath_andLeavesTheValue() throws Exception {
    ConfigCenter config = config(baton(), "/cfg-exists");
    config.create("pool/size", "10");

    assertThatThrownBy(() -> config.create("pool/size", "20"))
        .isInstanceOfSatisfying(ConfigKeyExistsException.class, e -> {
          assertThat(e.key()).isEqualTo("pool/size");
          assertThat(e.path()).isEqualTo("/cfg-exists/pool/size");
        })
        .hasMessageContaining("'pool/size'").hasMessageContaining("/cfg-exists/pool/size");
    assertThat(new String(raw.data("/cfg-exists/pool/size"), StandardCharsets.UTF_8)).isEqualTo("10");
    assertThat(config.entry("pool/size")).contains(new ConfigEntry("pool/size", "10", 0));
  }

  @Test
  void update_missingKey_failsNamingKeyAndPath_andCreatesNothing() throws Exception {
    ConfigCenter config = config(baton(), "/cfg-missing");

    assertThatThrownBy(() -> config.update("feature/new-checkout", "on"))
        .isInstanceOfSatisfying(ConfigKeyMissingException.class, e -> {
          assertThat(e.key()).isEqualTo("feature/new-checkout");
          assertThat(e.path()).isEqualTo("/cfg-missing/feature/new-checkout");
        })
        .hasMessageContaining("'feature/new-checkout'").hasMessageContaining("/cfg-missing/feature/new-checkout");
    assertThat(raw.exists("/cfg-missing/feature/new-checkout")).isFalse();
    assertThat(config.get("feature/new-checkout")).isEmpty();
  }

  @Test
  void update_existingKey_replacesTheValueAndBumpsTheVersion_evenWhenTheCopyIsBehind() throws Exception {
    ConfigCenter config = config(baton(), "/cfg-update");
    config.create("timeout", "5s");
    // Another client writes behind this copy's back; the update still lands (on the new version).
    raw.zk().setData("/cfg-update/timeout", "7s".getBytes(StandardCharsets.UTF_8), -1);

    ConfigEntry updated = config.update("timeout", "9s");

    assertThat(updated).isEqualTo(new ConfigEntry("timeout", "9s", 2));
    assertThat(config.get("timeout")).contains("9s");
    assertThat(raw.zk().exists("/cfg-update/timeout", false).getVersion()).isEqualTo(2);
  }

  @Test
  void set_createsAMissingKey_thenReplacesIt() throws Exception {
    ConfigCenter config = config(baton(), "/cfg-set");

    assertThat(config.set("a/b/c", "1")).isEqualTo(new ConfigEntry("a/b/c", "1", 0));
    assertThat(config.set("a/b/c", "2")).isEqualTo(new ConfigEntry("a/b/c", "2", 1));
    assertThat(config.set("a/b/c", "2")).as("same value: still a write").isEqualTo(new ConfigEntry("a/b/c", "2", 2));

    assertThat(config.snapshot()).isEqualTo(Map.of("a/b/c", "2"));
  }

  // ---- versions ------------------------------------------------------------------------------

  @Test
  void compareAndSet_writesOnlyOnTheVersionItWasGiven() throws Exception {
    ConfigCenter config = config(baton(), "/cfg-cas");
    config.create("stock", "5");
    int read = config.entry("stock").orElseThrow().version();
    config.update("stock", "4"); // someone else's write in between

    assertThat(config.compareAndSet("stock", read, "100")).as("stale version").isFalse();
    assertThat(config.get("stock")).contains("4");
    assertThat(new String(raw.data("/cfg-cas/stock"), StandardCharsets.UTF_8)).isEqualTo("4");

    ConfigEntry current = config.entry("stock").orElseThrow();
    assertThat(config.compareAndSet("stock", current.version(), "3")).isTrue();
    assertThat(config.entry("stock")).contains(new ConfigEntry("stock", "3", current.version() + 1));
    assertThat(config.compareAndSet("gone", 0, "x")).as("missing key").isFalse();
    assertThat(raw.exists("/cfg-cas/gone")).isFalse();
  }

  @Test
  void compareAndSet_twoClientsIncrementing_loseNoUpdate() throws Exception {
    ConfigCenter first = config(baton(), "/cfg-cas-race");
    ConfigCenter second = config(baton(), "/cfg-cas-race");
    first.create("orders", "0");
    await().atMost(WAIT).until(() -> second.get("orders").isPresent());
    ExecutorService pool = pool(2);

    List<Future<?>> done = new ArrayList<>();
    for (ConfigCenter config : List.of(first, second)) {
      done.add(pool.submit(() -> {
        for (int i = 0; i < 50; i++) {
          ConfigEntry seen = config.entry("orders").orElseThrow();
          // On a conflict the local copy is behind: read it again until it has caught up.
          while (!config.compareAndSet("orders", seen.version(), Integer.toString(Integer.parseInt(seen.value()) + 1))) {
            seen = config.entry("orders").orElseThrow();
          }
        }
        return null;
      }));
    }
    for (Future<?> future : done) {
      future.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    assertThat(new String(raw.data("/cfg-cas-race/orders"), StandardCharsets.UTF_8)).isEqualTo("100");
    await().atMost(WAIT).until(() -> second.getInt("orders", -1) == 100 && first.getInt("orders", -1) == 100);
  }

  @Test
  void delete_andDeleteIfVersion_sayWhatTheyFound() throws Exception {
    ConfigCenter config = config(baton(), "/cfg-delete");
    config.create("a", "1");
    config.create("b", "1");
    config.update("b", "2");

    assertThat(config.delete("a")).isTrue();
    assertThat(config.get("a")).as("gone from the copy when delete returns").isEmpty();
    assertThat(raw.exists("/cfg-delete/a")).isFalse();
    assertThat(config.delete("a")).as("no such key").isFalse();

    assertThat(config.deleteIfVersion("b", 0)).as("stale version").isFalse();
    assertThat(config.get("b")).contains("2");
    assertThat(config.deleteIfVersion("b", 1)).isTrue();
    assertThat(config.deleteIfVersion("b", 1)).isFalse();
    assertThat(raw.exists("/cfg-delete/b")).isFalse();
  }

  // ---- nested keys and folders ---------------------------------------------------------------

  @Test
  void nestedKeys_liveInFoldersWithoutData_whichAreNotKeys() throws Exception {
    ConfigCenter config = config(baton(), "/cfg-nested");
    config.create("db/primary/url", "jdbc:one");

    assertThat(raw.data("/cfg-nested/db")).as("a folder holds no data").isNull();
    assertThat(raw.data("/cfg-nested/db/primary")).isNull();
    assertThat(config.snapshot()).isEqualTo(Map.of("db/primary/url", "jdbc:one"));
    assertThat(config.get("db")).isEmpty();
    assertThatThrownBy(() -> config.create("db", "x")).isInstanceOf(ConfigKeyExistsException.class)
        .hasMessageContaining("folder");
    assertThatThrownBy(() -> config.set("db", "x")).isInstanceOf(ConfigKeyExistsException.class)
        .hasMessageContaining("folder");
    assertThatThrownBy(() -> config.update("db", "x")).isInstanceOf(ConfigKeyMissingException.class)
        .hasMessageContaining("folder");
    assertThat(config.delete("db")).as("a folder is no key").isFalse();
    assertThat(raw.data("/cfg-nested/db")).as("nothing written into the folder").isNull();

    // A key may have keys below it; it cannot be deleted before them.
    config.create("svc", "primary");
    config.create("svc/port", "8080");
    assertThat(config.snapshot()).containsEntry("svc", "primary").containsEntry("svc/port", "8080");
    assertThatThrownBy(() -> config.delete("svc")).isInstanceOf(BatonException.class)
        .hasMessageContaining("nested keys").hasMessageContaining("/cfg-nested/svc");
    assertThat(config.get("svc")).contains("primary");
  }

  @Test
  void nodesWrittenByOtherTools_folderWithoutDataIsNoKey_emptyDataIsAnEmptyValue() throws Exception {
    ConfigCenter config = config(baton(), "/cfg-foreign"); // before its prefix exists
    raw.zk().create("/cfg-foreign", null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    raw.zk().create("/cfg-foreign/app", null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT); // zkCli create
    raw.zk().create("/cfg-foreign/app/name", "shop".getBytes(StandardCharsets.UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE,
        CreateMode.PERSISTENT);
    raw.zk().create("/cfg-foreign/empty", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);

    await().atMost(WAIT).untilAsserted(() ->
        assertThat(config.snapshot()).isEqualTo(Map.of("app/name", "shop", "empty", "")));
  }

  // ---- typed reads ---------------------------------------------------------------------------

  @Test
  void typedGetters_parseTheValue_orGiveTheDefaultForAMissingKey() {
    ConfigCenter config = config(baton(), "/cfg-typed");
    config.set("pool/size", " 20 ");
    config.set("big", "9000000000");
    config.set("enabled", "TRUE");
    config.set("timeout", "250ms");
    config.set("retry", "PT1.5S");
    config.set("ttl", "2 h");

    assertThat(config.getInt("pool/size", 1)).isEqualTo(20);
    assertThat(config.getLong("big", 1)).isEqualTo(9_000_000_000L);
    assertThat(config.getBoolean("enabled", false)).isTrue();
    assertThat(config.getDuration("timeout", null)).isEqualTo(Duration.ofMillis(250));
    assertThat(config.getDuration("retry", null)).isEqualTo(Duration.ofMillis(1500));
    assertThat(config.getDuration("ttl", null)).isEqualTo(Duration.ofHours(2));
    assertThat(config.getInt("missing", 7)).isEqualTo(7);
    assertThat(config.getLong("missing", 8)).isEqualTo(8);
    assertThat(config.getBoolean("missing", true)).isTrue();
    assertThat(config.getDuration("missing", Duration.ofSeconds(3))).isEqualTo(Duration.ofSeconds(3));
    assertThat(config.get("missing", "fallback")).isEqualTo("fallback");
  }

  // ---- listeners -----------------------------------------------------------------------------

  @Test
  void listeners_areToldEachChangeOfAnotherClientsWrites_inOrder_offZooKeepersThread() throws Exception {
    ConfigCenter writer = config(baton(), "/cfg-listen");
    ConfigCenter reader = config(baton(), "/cfg-listen");
    List<String> heard = new CopyOnWriteArrayList<>();
    List<String> threads = new CopyOnWriteArrayList<>();
    reader.addListener((key, oldValue, newValue) -> {
      heard.add(key + ":" + oldValue + "->" + newValue);
      threads.add(Thread.currentThread().getName());
    });

    writer.create("mode", "a");
    await().atMost(WAIT).until(() -> reader.get("mode").equals(java.util.Optional.of("a")));
    writer.update("mode", "b");
    await().atMost(WAIT).until(() -> reader.get("mode").equals(java.util.Optional.of("b")));
    writer.set("mode", "b"); // the same value again: no change to tell
    writer.delete("mode");
    await().atMost(WAIT).until(() -> reader.get("mode").isEmpty());
    writer.create("marker", "m");

    await().atMost(WAIT).until(() -> heard.contains("marker:null->m"));
    assertThat(heard).containsExactly("mode:null->a", "mode:a->b", "mode:b->null", "marker:null->m");
    assertThat(threads).allSatisfy(name -> assertThat(name).startsWith("baton-").doesNotContain("EventThread"));
  }

  @Test
  void listenerOnAPool_hearsTheChangesOneAtATimeInOrder() throws Exception {
    ConfigCenter config = config(baton(), "/cfg-listen-pool");
    List<String> heard = Collections.synchronizedList(new ArrayList<>());
    int[] running = new int[1];
    List<Integer> overlaps = new CopyOnWriteArrayList<>();
    CountDownLatch writesDone = new CountDownLatch(1);
    config.addListener((key, oldValue, newValue) -> {
      synchronized (running) {
        if (++running[0] > 1) {
          overlaps.add(running[0]);
        }
      }
      if (newValue.equals("1")) {
        // Held until every change is queued, so the other pool threads are free to (wrongly) run some.
        awaitQuietly(writesDone);
      }
      heard.add(newValue);
      synchronized (running) {
        running[0]--;
      }
    }, pool(4));

    // Each write's reply updates the writer's own copy: exactly one change per write.
    for (int i = 1; i <= 200; i++) {
      config.set("counter", Integer.toString(i));
    }
    writesDone.countDown();

    await().atMost(WAIT).until(() -> heard.size() == 200);
    assertThat(heard).containsExactlyElementsOf(IntStream.rangeClosed(1, 200).mapToObj(Integer::toString).toList());
    assertThat(overlaps).as("calls that overlapped").isEmpty();
  }

  @Test
  void ownWrites_areReadBackAtOnce_everyTime() {
    ConfigCenter config = config(baton(), "/cfg-ryw");
    ConfigCenter other = config(baton(), "/cfg-ryw");
    for (int i = 0; i < 100; i++) {
      ConfigCenter writer = i % 2 == 0 ? config : other;
      writer.set("k", "v" + i);
      assertThat(writer.get("k")).contains("v" + i);
      assertThat(writer.entry("k").orElseThrow().version()).isEqualTo(i);
    }
  }

  /**
   * What the ensemble serves, counted by its own packet counter: a read of the copy is no
   * request; an update is one write, plus one read per other client's copy. The writer's own copy
   * reads nothing: the write's reply tells it the new value.
   */
  @Test
  void requestCount_readsAreFree_anUpdateCostsTheWriteAndOneReadPerOtherCopy() {
    ConfigCenter writer = config(baton(cluster.connectString(), Duration.ofSeconds(30)), "/cfg-count");
    ConfigCenter reader = config(baton(cluster.connectString(), Duration.ofSeconds(30)), "/cfg-count");
    writer.set("k", "0");
    await().atMost(WAIT).until(() -> reader.get("k").isPresent());

    long before = cluster.packetsReceived(0);
    for (int i = 0; i < 1000; i++) {
      reader.get("k");
      writer.getInt("k", 0);
    }
    assertThat(cluster.packetsReceived(0) - before - cluster.packetReadingCost(0)).as("requests for 2000 reads").isZero();

    int updates = 200;
    before = cluster.packetsReceived(0);
    for (int i = 1; i <= updates; i++) {
      writer.update("k", Integer.toString(i));
    }
    await().atMost(WAIT).until(() -> reader.getInt("k", 0) == updates);
    long per100 = (cluster.packetsReceived(0) - before - cluster.packetReadingCost(0)) * 100 / updates;
    // Two a cycle (a ping of an idle session may fall in the window).
    assertThat(per100).as("requests per update x 100").isBetween(199L, 202L);
  }

  // ---- faults --------------------------------------------------------------------------------

  @Test
  void cutLink_changesMadeMeanwhile_areSeenAfterReconnection_andToldOnce() throws Exception {
    FaultProxy proxy = closing(FaultProxy.start(cluster.address(0)));
    ConfigCenter writer = config(baton(), "/cfg-cut");
    writer.set("same", "1");
    writer.set("changed", "old");
    writer.set("deleted", "x");
    Baton readerClient = baton(proxy.connectString(), Duration.ofSeconds(20));
    ConfigCenter reader = config(readerClient, "/cfg-cut");
    assertThat(reader.snapshot()).as("loaded when made").isEqualTo(Map.of("same", "1", "changed", "old", "deleted", "x"));
    assertThat(reader.isSynced()).isTrue();
    List<String> heard = new CopyOnWriteArrayList<>();
    reader.addListener((key, oldValue, newValue) -> heard.add(key + ":" + oldValue + "->" + newValue));
    long session = readerClient.sessionId();

    proxy.cut();
    await().atMost(WAIT).until(() -> !reader.isSynced());
    writer.set("changed", "new");
    writer.create("created", "c");
    writer.delete("deleted");
    writer.create("nested/deep/key", "d");
    assertThat(reader.get("changed")).as("reads serve the last values while cut").contains("old");
    proxy.restore();

    await().atMost(WAIT).until(reader::isSynced);
    assertThat(readerClient.sessionId()).as("the same session").isEqualTo(session);
    assertThat(reader.snapshot()).isEqualTo(
        Map.of("same", "1", "changed", "new", "created", "c", "nested/deep/key", "d"));
    writer.create("marker", "m"); // followed live again
    await().atMost(WAIT).until(() -> heard.contains("marker:null->m"));
    assertThat(heard).containsExactlyInAnyOrder("changed:old->new", "created:null->c", "deleted:x->null",
        "nested/deep/key:null->d", "marker:null->m");
    assertThat(heard.get(heard.size() - 1)).isEqualTo("marker:null->m");
  }

  @Test
  void sessionExpiry_theCopyLoadsAgainOnTheNewSession_andFollowsIt() throws Exception {
    FaultProxy proxy = closing(FaultProxy.start(cluster.address(0)));
    ConfigCenter writer = config(baton(), "/cfg-expiry");
    writer.set("kept", "1");
    writer.set("changed", "old");
    Baton readerClient = baton(proxy.connectString(), Duration.ofSeconds(1));
    ConfigCenter reader = config(readerClient, "/cfg-expiry");
    List<String> heard = new CopyOnWriteArrayList<>();
    reader.addListener((key, oldValue, newValue) -> heard.add(key + ":" + oldValue + "->" + newValue));
    long firstSession = readerClient.sessionId();
    // An ephemeral node of the reader's session shows when the ensemble has ended it.
    Lease lease = readerClient.mutex("/cfg-expiry-session").acquire(WAIT);

    proxy.blackhole();
    await().atMost(WAIT).until(() -> raw.children("/cfg-expiry-session").isEmpty());
    writer.set("changed", "new");
    writer.set("added", "a");
    proxy.restore();

    await().atMost(WAIT).until(() -> readerClient.sessionId() != firstSession && reader.isSynced());
    assertThat(reader.snapshot()).isEqualTo(Map.of("kept", "1", "changed", "new", "added", "a"));
    writer.set("after", "z"); // the new session's watch
    await().atMost(WAIT).until(() -> heard.contains("after:null->z"));
    assertThat(heard).hasSize(3).endsWith("after:null->z")
        .containsExactlyInAnyOrder("changed:old->new", "added:null->a", "after:null->z");
    lease.close();
  }

  // ---- close ---------------------------------------------------------------------------------

  @Test
  void close_leavesNoWatchOnTheServer_andOtherConfigCentersOfTheClientKeepTheirs() throws Exception {
    Baton client = baton();
    ConfigCenter first = ConfigCenter.open(client, "/cfg-close");
    ConfigCenter second = ConfigCenter.open(client, "/cfg-close");
    ConfigCenter nested = ConfigCenter.open(client, "/cfg-close/db");
    ConfigCenter writer = config(baton(), "/cfg-close");
    // One per session and path: the client's on /cfg-close and /cfg-close/db, the writer's.
    awaitWatchCount(3);

    first.close();
    writer.set("db/url", "jdbc:x");
    await().atMost(WAIT).until(() -> second.get("db/url").isPresent() && nested.get("url").isPresent());
    awaitWatchCount(3);

    second.close();
    awaitWatchCount(2);
    writer.set("db/url", "jdbc:y");
    await().atMost(WAIT).until(() -> nested.get("url").equals(java.util.Optional.of("jdbc:y")));

    nested.close();
    awaitWatchCount(1);
    writer.close();
    awaitWatchCount(0);
    assertThatThrownBy(() -> first.get("db/url")).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("/cfg-close");
    assertThatThrownBy(() -> first.set("db/url", "z")).isInstanceOf(IllegalStateException.class);
    first.close(); // idempotent
  }

  @Test
  void closingTheClient_endsTheWatch_butReadsServeTheLastValues() {
    Baton client = baton();
    ConfigCenter config = ConfigCenter.open(client, "/cfg-client-close");
    config.set("k", "v");

    client.close();

    awaitWatchCount(0);
    assertThat(config.get("k")).contains("v");
    assertThat(config.isSynced()).isFalse();
    assertThatThrownBy(() -> config.set("k", "w")).isInstanceOf(ClientClosedException.class);
    assertThatThrownBy(() -> ConfigCenter.open(client, "/cfg-client-close")).isInstanceOf(ClientClosedException.class);
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(WAIT.toSeconds(), TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void awaitWatchCount(int count) {
    await().atMost(WAIT).untilAsserted(() -> assertThat(cluster.metrics(0).get("zk_watch_count"))
        .as("watches on the server (%s)", cluster.watchesBySession(0)).isEqualTo(Integer.toString(count)));
  }
}
