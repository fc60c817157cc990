package dev.baton.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.ClusterTestSupport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every kind of bad input to the config center: a specific exception naming the argument (the
 * key, the value and the type wanted, the size and the limit), and nothing written to the
 * ensemble.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConfigBadInputTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private ConfigCenter config;
  private Set<String> treeBefore;

  @BeforeEach
  void configCenter() throws Exception {
    raw.deleteRecursively("/cfg-bad");
    config = closing(ConfigCenter.open(baton(), "/cfg-bad"));
    config.set("existing", "1");
    treeBefore = raw.tree();
  }

  private void assertNothingWritten() throws Exception {
    assertThat(raw.tree()).as("nodes on the server").isEqualTo(treeBefore);
    assertThat(config.snapshot()).isEqualTo(Map.of("existing", "1"));
  }

  // ---- keys and prefixes ---------------------------------------------------------------------

  @ParameterizedTest
  @ValueSource(strings = {"", "/db/url", "db/url/", "/", "db//url", "db/./url", "db/../url", "db/\u0001url"})
  void invalidKey_isRefusedByEveryMethodNamingTheKey(String key) throws Exception {
    List<Consumer<ConfigCenter>> uses = List.of(c -> c.get(key), c -> c.get(key, "d"), c -> c.getInt(key, 1),
        c -> c.getLong(key, 1), c -> c.getBoolean(key, true), c -> c.getDuration(key, Duration.ZERO),
        c -> c.entry(key), c -> c.create(key, "v"), c -> c.update(key, "v"), c -> c.set(key, "v"),
        c -> c.compareAndSet(key, 0, "v"), c -> c.delete(key), c -> c.deleteIfVersion(key, 0));
    for (Consumer<ConfigCenter> use : uses) {
      assertThatThrownBy(() -> use.accept(config)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("config key").hasMessageContaining(key.replace("\u0001", "\\u0001"));
    }
    assertNothingWritten();
  }

  @Test
  void nullKeyOrValue_isRefusedNamingTheArgument() throws Exception {
    assertThatThrownBy(() -> config.get(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("config key");
    assertThatThrownBy(() -> config.set(null, "v")).isInstanceOf(NullPointerException.class).hasMessageContaining("config key");
    assertThatThrownBy(() -> config.create("k", null)).isInstanceOf(NullPointerException.class).hasMessageContaining("value");
    assertThatThrownBy(() -> config.update("existing", null)).isInstanceOf(NullPointerException.class).hasMessageContaining("value");
    assertThatThrownBy(() -> config.compareAndSet("existing", 0, null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("value");
    assertNothingWritten();
  }

  /**
   * A key whose node path cannot fit one request: sent, the server would drop the connection,
   * and every retry after the reconnect would be dropped again. Refused before anything is sent,
   * with the key shortened in the message.
   */
  @Test
  void keyOverThePacketLimit_isRefusedByEveryWriteWithAShortMessage() throws Exception {
    String key = "k" + "x".repeat(1_100_000);
    List<Consumer<ConfigCenter>> writes = List.of(c -> c.create(key, "v"), c -> c.update(key, "v"),
        c -> c.set(key, "v"), c -> c.compareAndSet(key, 0, "v"), c -> c.delete(key), c -> c.deleteIfVersion(key, 0));
    for (Consumer<ConfigCenter> write : writes) {
      assertThatThrownBy(() -> write.accept(config)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("config key 'kxxx").hasMessageContaining("too long")
          .hasMessageContaining(key.length() + " characters")
          .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(1_000));
    }
    assertThat(config.get(key)).as("a read is local: nothing to refuse").isEmpty();
    assertNothingWritten();
  }

  @Test
  void prefixInTheReservedTreeOrOverThePacketLimit_isRefused() throws Exception {
    assertThatThrownBy(() -> ConfigCenter.open(baton(), "/zookeeper/config")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("config prefix '/zookeeper/config'").hasMessageContaining("reserved /zookeeper tree");
    String longPrefix = "/c" + "c".repeat(1_100_000);
    assertThatThrownBy(() -> ConfigCenter.open(baton(), longPrefix)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("too long").satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(1_000));
    assertNothingWritten();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "config", "/", "/config/", "/a//b"})
  void invalidPrefix_isRefusedNamingIt(String prefix) {
    assertThatThrownBy(() -> ConfigCenter.open(baton(), prefix)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("config prefix '" + prefix + "'");
  }

  @Test
  void nullPrefixOrOptions_isRefusedNamingTheArgument(@TempDir Path directory) {
    Baton client = baton();
    assertThatThrownBy(() -> ConfigCenter.open(client, null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("config prefix");
    assertThatThrownBy(() -> ConfigCenter.open(client, "/cfg-bad", null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("options");
    assertThatThrownBy(() -> ConfigOptions.defaults().withSnapshotFile(null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("snapshotFile");
    assertThatThrownBy(() -> ConfigOptions.defaults().withSnapshotFile(directory))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("snapshotFile")
        .hasMessageContaining(directory.toString());
  }

  // ---- values --------------------------------------------------------------------------------

  @Test
  void valueOverTheNodeSizeLimit_isRefusedBeforeAnythingIsSent_andTheLargestThatFitsIsWrittenAndRead()
      throws Exception {
    // 1 MB packet (jute.maxbuffer) less the 88 bytes of a read's reply around the data.
    int largest = 0xfffff - 88;
    String tooBig = "x".repeat(largest + 1);
    for (Consumer<ConfigCenter> write : List.<Consumer<ConfigCenter>>of(c -> c.create("big", tooBig),
        c -> c.set("big", tooBig), c -> c.update("existing", tooBig), c -> c.compareAndSet("existing", 0, tooBig))) {
      assertThatThrownBy(() -> write.accept(config)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("config key")
          .hasMessageContaining(Integer.toString(largest + 1)).hasMessageContaining(Integer.toString(largest))
          .hasMessageContaining("/cfg-bad/").hasMessageContaining("nothing was written");
    }
    // Multi-byte characters count as their UTF-8 bytes.
    String wide = "\u00e9".repeat(largest / 2 + 1);
    assertThatThrownBy(() -> config.set("wide", wide)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(Integer.toString(2 * (largest / 2 + 1)));
    assertNothingWritten();

    String fits = "y".repeat(largest);
    config.create("big", fits);
    ConfigCenter reader = closing(ConfigCenter.open(baton(), "/cfg-bad"));
    assertThat(reader.get("big")).as("loaded by another copy").contains(fits);
    config.update("big", fits.replace('y', 'z'));
    await().atMost(WAIT).until(() -> reader.get("big").orElse("").startsWith("z"));
  }

  @Test
  void malformedTypedValue_failsNamingKeyValueAndType() {
    config.set("size", "ten");
    config.set("flag", "yes");
    config.set("timeout", "5");
    config.set("huge", "99999999999");
    config.set("iso", "PT5X");

    assertMalformed(() -> config.getInt("size", 1), "size", "ten", "int");
    assertMalformed(() -> config.getLong("size", 1), "size", "ten", "long");
    assertMalformed(() -> config.getInt("huge", 1), "huge", "99999999999", "int");
    assertMalformed(() -> config.getBoolean("flag", false), "flag", "yes", "boolean");
    assertMalformed(() -> config.getDuration("timeout", null), "timeout", "5", "Duration");
    assertMalformed(() -> config.getDuration("iso", null), "iso", "PT5X", "Duration");
    assertMalformed(() -> config.getDuration("size", null), "size", "ten", "Duration");
  }

  private static void assertMalformed(Runnable read, String key, String value, String type) {
    assertThatThrownBy(read::run)
        .isInstanceOfSatisfying(ConfigValueException.class, e -> {
          assertThat(e.key()).isEqualTo(key);
          assertThat(e.value()).isEqualTo(value);
          assertThat(e.type()).isEqualTo(type);
        })
        .hasMessageContaining("'" + key + "'").hasMessageContaining("'" + value + "'").hasMessageContaining(type);
  }

  // ---- versions, listeners, timeouts ---------------------------------------------------------

  @Test
  void negativeVersion_isRefused_becauseZooKeeperWouldTakeItAsAny() throws Exception {
    assertThatThrownBy(() -> config.compareAndSet("existing", -1, "2")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("expectedVersion").hasMessageContaining("-1");
    assertThatThrownBy(() -> config.deleteIfVersion("existing", -1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("expectedVersion");
    assertNothingWritten();
  }

  @Test
  void nullListenerExecutorOrTimeout_andNegativeTimeout_areRefusedNamingTheArgument() {
    assertThatThrownBy(() -> config.addListener(null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("listener");
    assertThatThrownBy(() -> config.addListener((k, o, n) -> { }, null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("executor");
    assertThatThrownBy(() -> config.awaitSynced(null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("timeout");
    assertThatThrownBy(() -> config.awaitSynced(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("timeout");
  }

  @Test
  void closedConfigCenter_refusesEveryUse_namingItsPrefix() {
    ConfigCenter closed = ConfigCenter.open(baton(), "/cfg-bad");
    closed.close();
    List<Consumer<ConfigCenter>> uses = List.of(c -> c.get("existing"), c -> c.snapshot(), c -> c.set("k", "v"),
        c -> c.delete("existing"), c -> c.addListener((k, o, n) -> { }), c -> c.awaitSynced(Duration.ZERO));
    for (Consumer<ConfigCenter> use : uses) {
      assertThatThrownBy(() -> use.accept(closed)).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("/cfg-bad").hasMessageContaining("closed");
    }
  }
}
