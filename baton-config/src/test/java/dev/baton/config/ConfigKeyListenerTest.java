package dev.baton.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.ClusterTestSupport;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Listeners of one key and of a key prefix hear exactly the changes of their keys (a prefix
 * takes in nested keys, not siblings whose name only starts the same); removing a listener removes
 * it everywhere it was added; lists, maps and a prefix's snapshot read from the local copy.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConfigKeyListenerTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(10);

  @Test
  void keyAndPrefixListeners_hearOnlyTheirKeys() {
    ConfigCenter config = closing(ConfigCenter.open(baton(), "/cfg-key-listeners"));
    ExecutorService pool = pool(4);
    List<String> byKey = new CopyOnWriteArrayList<>();
    List<String> byPrefix = new CopyOnWriteArrayList<>();
    List<String> all = new CopyOnWriteArrayList<>();
    config.addKeyListener("db/url", (key, oldValue, newValue) -> byKey.add(key + "=" + newValue), pool);
    config.addPrefixListener("db", (key, oldValue, newValue) -> byPrefix.add(key + "=" + newValue), pool);
    config.addListener((key, oldValue, newValue) -> all.add(key + "=" + newValue), pool);

    config.set("db", "primary");
    config.set("db/url", "jdbc:a");
    config.set("db2", "other");
    config.set("db/pool/size", "5");
    config.set("http/port", "80");
    config.set("db/url", "jdbc:b");

    // Each listener has its own queue: wait for all three, then check nothing else came.
    await().atMost(WAIT).until(() -> all.size() == 6 && byKey.size() >= 2 && byPrefix.size() >= 4);
    assertThat(byKey).containsExactly("db/url=jdbc:a", "db/url=jdbc:b");
    assertThat(byPrefix).containsExactly("db=primary", "db/url=jdbc:a", "db/pool/size=5", "db/url=jdbc:b");
  }

  @Test
  void removeListener_removesItForEveryKeyItWasAddedFor() {
    ConfigCenter config = closing(ConfigCenter.open(baton(), "/cfg-key-remove"));
    List<String> heard = new CopyOnWriteArrayList<>();
    List<String> marker = new CopyOnWriteArrayList<>();
    ConfigListener listener = (key, oldValue, newValue) -> heard.add(key);
    config.addKeyListener("a", listener, Runnable::run);
    config.addPrefixListener("b", listener, Runnable::run);
    config.addListener((key, oldValue, newValue) -> marker.add(key), Runnable::run);

    config.removeListener(listener);
    config.set("a", "1");
    config.set("b/c", "2");

    await().atMost(WAIT).until(() -> marker.size() == 2);
    assertThat(heard).isEmpty();
  }

  @Test
  void listsMapsAndPrefixSnapshots_readFromTheCopy() {
    ConfigCenter config = closing(ConfigCenter.open(baton(), "/cfg-typed"));
    config.set("hosts", " a, b ,,c ");
    config.set("empty", "");
    config.set("weights", "eu=3, us = 1");
    config.set("broken", "eu=3, us");
    config.set("db/url", "u");
    config.set("db/pool/size", "5");
    config.set("db2", "x");

    assertThat(config.getList("hosts", List.of())).containsExactly("a", "b", "c");
    assertThat(config.getList("empty", List.of("d"))).isEmpty();
    assertThat(config.getList("missing", List.of("d"))).containsExactly("d");
    assertThat(config.getMap("weights", Map.of())).containsExactly(Map.entry("eu", "3"), Map.entry("us", "1"));
    assertThatThrownBy(() -> config.getMap("broken", Map.of())).isInstanceOf(ConfigValueException.class)
        .hasMessageContaining("'broken'").hasMessageContaining("us");
    assertThat(config.snapshot("db")).containsOnlyKeys("db/url", "db/pool/size");
    assertThatThrownBy(() -> config.snapshot("/db")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("/db");
    assertThatThrownBy(() -> config.addPrefixListener("bad//prefix", (k, o, n) -> { }, Runnable::run))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bad//prefix");
  }
}
