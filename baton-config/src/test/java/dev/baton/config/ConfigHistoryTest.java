package dev.baton.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.ClusterTestSupport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The history of config keys: each write's revision (value, version, what it replaced, who and
 * when) is made in the same transaction as the write, kept to the last N, survives the key's
 * deletion, and lets a key be rolled back; under concurrent writers no write lacks its revision
 * and none is out of order; bad input is refused with nothing written; plain readers of the
 * key's node see the plain value.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ConfigHistoryTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private ConfigCenter open(String prefix, int keep) {
    return closing(ConfigCenter.open(baton(), prefix, ConfigOptions.defaults().withHistory(keep)));
  }

  private static String plainRead(String path) throws Exception {
    return new String(raw.data(path), StandardCharsets.UTF_8);
  }

  @Test
  void writes_recordTheirRevisions_newestFirst_withWhatTheyReplacedAndWho() throws Exception {
    Instant before = Instant.now().minusSeconds(60);
    Baton digest = closing(Baton.builder().connectString(cluster.connectString()).digestAuth("ops", "secret")
        .build());
    ConfigCenter config = closing(ConfigCenter.open(digest, "/hist-basic", ConfigOptions.defaults().withHistory(5)));

    config.create("db/url", "a");
    config.update("db/url", "b");
    config.set("db/url", "c");
    assertThat(config.compareAndSet("db/url", 2, "d")).isTrue();

    List<ConfigRevision> history = config.history("db/url");
    assertThat(history).extracting(ConfigRevision::version).containsExactly(3, 2, 1, 0);
    assertThat(history).extracting(ConfigRevision::operation)
        .containsExactly("compare-and-set", "set", "update", "create");
    assertThat(history).extracting(r -> r.value().orElseThrow()).containsExactly("d", "c", "b", "a");
    assertThat(history).extracting(ConfigRevision::previousVersion).containsExactly(2, 1, 0, -1);
    assertThat(history.get(0).previousValue()).contains("c");
    assertThat(history.get(3).previousValue()).isEmpty();
    ConfigRevision newest = history.get(0);
    assertThat(newest.pid()).isEqualTo(ProcessHandle.current().pid());
    assertThat(newest.host()).isNotBlank();
    assertThat(newest.authId()).contains("digest:ops");
    assertThat(newest.time()).isAfter(before).isBefore(Instant.now().plusSeconds(60));
    // Plain readers of the key's node see its value, and nothing of the history under the prefix.
    assertThat(plainRead("/hist-basic/db/url")).isEqualTo("d");
    assertThat(raw.children("/hist-basic")).containsExactly("db");
    assertThat(config.get("db/url")).contains("d");
  }

  @Test
  void history_isBoundedToTheLastN_onTheServerToo() throws Exception {
    ConfigCenter config = open("/hist-bound", 3);
    for (int i = 0; i < 7; i++) {
      config.set("k", "v" + i);
    }

    assertThat(config.history("k")).extracting(r -> r.value().orElseThrow()).containsExactly("v6", "v5", "v4");
    await().atMost(WAIT).until(() -> raw.children("/hist-bound.history/k").size() == 3);
  }

  @Test
  void historyFolderRemovedByHand_nextWriteMakesItAgain_withItsRevision() throws Exception {
    ConfigCenter config = open("/hist-removed", 5);
    config.set("k", "a");
    config.set("k", "b");
    raw.deleteRecursively("/hist-removed.history/k");

    config.set("k", "c");
    config.create("fresh", "f");
    raw.deleteRecursively("/hist-removed.history");
    config.update("k", "d");
    assertThat(config.delete("fresh")).isTrue();

    assertThat(config.history("k")).extracting(r -> r.value().orElseThrow()).containsExactly("d");
    assertThat(config.history("fresh")).extracting(ConfigRevision::operation).containsExactly("delete");
    assertThat(plainRead("/hist-removed/k")).isEqualTo("d");
  }

  /**
   * Regression: a write whose revision alone failed (its history folder removed by hand) was
   * answered as a version conflict, so a compare-and-set on the right version returned false
   * though nothing else had written the key.
   */
  @Test
  void historyFolderRemovedByHand_compareAndSetOnTheRightVersion_succeeds() throws Exception {
    ConfigCenter config = open("/hist-removed-cas", 5);
    config.set("k", "a");
    raw.deleteRecursively("/hist-removed-cas.history/k");

    assertThat(config.compareAndSet("k", 0, "b")).isTrue();
    assertThat(config.deleteIfVersion("k", 1)).isTrue();

    assertThat(raw.exists("/hist-removed-cas/k")).isFalse();
    assertThat(config.history("k")).extracting(ConfigRevision::operation).containsExactly("delete", "compare-and-set");
  }

  @Test
  void delete_keepsTheHistory_andRollbackBringsTheKeyBack() throws Exception {
    ConfigCenter config = open("/hist-delete", 10);
    config.set("k", "first");
    config.set("k", "second");
    assertThat(config.delete("k")).isTrue();

    List<ConfigRevision> history = config.history("k");
    assertThat(history.get(0).isDelete()).isTrue();
    assertThat(history.get(0).previousVersion()).isEqualTo(1);
    assertThat(history.get(0).previousValue()).contains("second");

    ConfigEntry back = config.rollback("k", 0);

    assertThat(back.value()).isEqualTo("first");
    assertThat(plainRead("/hist-delete/k")).isEqualTo("first");
    assertThat(config.history("k").get(0).operation()).isEqualTo("rollback to version 0");
    assertThat(config.history("k")).hasSize(4);
  }

  @Test
  void concurrentWriters_everyWriteHasItsRevision_inTheOrderApplied() throws Exception {
    int writers = 4;
    int writesEach = 12;
    List<ConfigCenter> centers = new ArrayList<>();
    for (int i = 0; i < writers; i++) {
      centers.add(open("/hist-concurrent", 100));
    }
    ExecutorService pool = pool(writers);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<Set<String>>> results = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      ConfigCenter config = centers.get(w);
      int writer = w;
      results.add(pool.submit(() -> {
        start.await();
        Set<String> written = new HashSet<>();
        for (int i = 0; i < writesEach; i++) {
          String value = "w" + writer + "-" + i;
          config.set("k", value);
          written.add(value);
        }
        return written;
      }));
    }
    start.countDown();
    Set<String> written = new HashSet<>();
    for (Future<Set<String>> result : results) {
      written.addAll(result.get(60, TimeUnit.SECONDS));
    }

    List<ConfigRevision> history = centers.get(0).history("k");
    assertThat(history).as("one revision per write").hasSize(writers * writesEach);
    assertChain(history);
    assertThat(history).extracting(r -> r.value().orElseThrow()).containsExactlyInAnyOrderElementsOf(written);
    assertThat(plainRead("/hist-concurrent/k")).isEqualTo(history.get(0).value().orElseThrow());
  }

  @Test
  void rollbackUnderContention_staysAChain_andRollsBackToTheKeptValue() throws Exception {
    ConfigCenter first = open("/hist-rollback", 200);
    first.set("k", "origin");
    ConfigCenter second = open("/hist-rollback", 200);
    ExecutorService pool = pool(2);
    CountDownLatch start = new CountDownLatch(1);
    Future<?> writer = pool.submit(() -> {
      start.await();
      for (int i = 0; i < 15; i++) {
        first.set("k", "new-" + i);
      }
      return null;
    });
    Future<?> roller = pool.submit(() -> {
      start.await();
      for (int i = 0; i < 15; i++) {
        assertThat(second.rollback("k", 0).value()).isEqualTo("origin");
      }
      return null;
    });
    start.countDown();
    writer.get(60, TimeUnit.SECONDS);
    roller.get(60, TimeUnit.SECONDS);

    List<ConfigRevision> history = first.history("k");
    assertThat(history).hasSize(31);
    assertChain(history);
    assertThat(history).filteredOn(r -> r.operation().startsWith("rollback")).hasSize(15)
        .allSatisfy(r -> assertThat(r.value()).contains("origin"));
  }

  /** Newest first: each revision replaced the version the one before it wrote, none missing. */
  private static void assertChain(List<ConfigRevision> newestFirst) {
    for (int i = 0; i < newestFirst.size(); i++) {
      ConfigRevision older = i + 1 < newestFirst.size() ? newestFirst.get(i + 1) : null;
      ConfigRevision newer = newestFirst.get(i);
      if (older != null) {
        assertThat(newer.previousVersion()).as("revision %d replaced the one before it", i)
            .isEqualTo(older.version());
        assertThat(newer.version()).isEqualTo(older.version() + 1);
        assertThat(newer.previousValue()).isEqualTo(older.value());
      }
    }
  }

  @Test
  void badInput_isRefused_andNothingIsWritten() throws Exception {
    assertThatThrownBy(() -> ConfigOptions.defaults().withHistory(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("history versions").hasMessageContaining("0");
    ConfigCenter config = open("/hist-bad", 2);
    config.set("k", "a");
    config.set("k", "b");
    config.set("k", "c");
    config.set("k", "d"); // revisions of versions 3 and 2 kept, which replaced 2 and 1
    int versionBefore = config.entry("k").orElseThrow().version();

    assertThatThrownBy(() -> config.rollback("k", 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Version 0").hasMessageContaining("'k'").hasMessageContaining("[1, 2, 3]")
        .hasMessageContaining("nothing was written");
    assertThatThrownBy(() -> config.rollback("k", -1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("toVersion");
    assertThatThrownBy(() -> config.rollback("bad//key", 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bad//key");
    assertThatThrownBy(() -> config.history("/abs")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("/abs");
    assertThatThrownBy(() -> config.rollback("never-written", 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("never-written");

    assertThat(config.entry("k").map(ConfigEntry::version)).contains(versionBefore);
    await().atMost(WAIT).until(() -> raw.children("/hist-bad.history/k").size() == 2);
    assertThat(raw.exists("/hist-bad/never-written")).isFalse();
    assertThat(raw.exists("/hist-bad.history/never-written")).isFalse();

    ConfigCenter plain = closing(ConfigCenter.open(baton(), "/hist-bad"));
    assertThatThrownBy(() -> plain.history("k")).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("withHistory");
    assertThatThrownBy(() -> plain.rollback("k", 1)).isInstanceOf(IllegalStateException.class);
    assertThat(plain.get("k")).isEqualTo(Optional.of("d"));
  }
}
