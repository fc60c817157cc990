package dev.baton.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.ClusterTestSupport;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A record bound to a key prefix: built from the keys (names or kebab-case names, typed), kept
 * current as keys change, a change that breaks it keeps the last good record, and records the
 * keys cannot make are refused clearly.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConfigBindTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(10);

  record Db(String url, int poolSize, Duration timeout, boolean readOnly, List<String> hosts,
      Map<String, String> weights, Optional<String> user, double ratio) {}

  record Unsupported(StringBuilder text) {}

  /** A record whose first build on {@link #blockIn} waits for the test: a change lands meanwhile. */
  record Gated(String name) {
    static volatile Thread blockIn;
    static final CountDownLatch building = new CountDownLatch(1);
    static final CountDownLatch release = new CountDownLatch(1);

    Gated {
      if (Thread.currentThread() == blockIn) {
        blockIn = null;
        building.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  /**
   * Regression: the binding built its record, then added its listener; a change in between was
   * never heard, and the record stayed old until the next change, maybe forever.
   */
  @Test
  void aChangeWhileTheFirstRecordIsBuilt_isNotMissed() throws Exception {
    ConfigCenter config = closing(ConfigCenter.open(baton(), "/cfg-bind-gated"));
    config.set("gate/name", "old");
    CompletableFuture<ConfigBinding<Gated>> binding = new CompletableFuture<>();
    Thread binder = new Thread(() -> binding.complete(config.bind("gate", Gated.class)), "binder");
    Gated.blockIn = binder;
    binder.start();
    assertThat(Gated.building.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

    config.set("gate/name", "new"); // after the record's keys were read, before bind returns
    Gated.release.countDown();

    ConfigBinding<Gated> gated = closing(binding.get(WAIT.toSeconds(), TimeUnit.SECONDS));
    await().atMost(WAIT).until(() -> gated.get().name().equals("new"));
  }

  @Test
  void bind_buildsTheRecord_andFollowsChanges_keepingTheLastGoodOne() {
    ConfigCenter config = closing(ConfigCenter.open(baton(), "/cfg-bind"));
    config.set("db/url", "jdbc:a");
    config.set("db/pool-size", "5");
    config.set("db/timeout", "250ms");
    config.set("db/readOnly", "true");
    config.set("db/hosts", "a, b");
    config.set("db/weights", "eu=3");
    config.set("db/ratio", "0.5");

    ConfigBinding<Db> db = closing(config.bind("db", Db.class));
    List<Db> heard = new CopyOnWriteArrayList<>();
    db.addListener(heard::add, Runnable::run);

    assertThat(db.get()).isEqualTo(new Db("jdbc:a", 5, Duration.ofMillis(250), true, List.of("a", "b"),
        Map.of("eu", "3"), Optional.empty(), 0.5));

    config.set("db/pool-size", "8");
    config.set("db/user", "app");
    await().atMost(WAIT).until(() -> db.get().poolSize() == 8 && db.get().user().isPresent());
    assertThat(db.get().user()).contains("app");

    config.set("db/pool-size", "many"); // unusable: the last good record stays
    config.set("other", "x");
    config.set("db/url", "jdbc:b");     // still unusable as a whole
    config.set("db/pool-size", "9");
    await().atMost(WAIT).until(() -> db.get().poolSize() == 9);
    assertThat(db.get().url()).isEqualTo("jdbc:b");
    assertThat(heard).extracting(Db::poolSize).doesNotContain(0).last().isEqualTo(9);
  }

  @Test
  void badBindings_areRefusedClearly() {
    ConfigCenter config = closing(ConfigCenter.open(baton(), "/cfg-bind-bad"));
    config.set("db/url", "u");
    config.set("db/pool-size", "five");

    assertThatThrownBy(() -> config.bind("db", Unsupported.class)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("text").hasMessageContaining("StringBuilder");
    assertThatThrownBy(() -> config.bind("db", Db.class)).isInstanceOf(ConfigValueException.class)
        .hasMessageContaining("db/pool-size");
    config.set("db/pool-size", "5");
    assertThatThrownBy(() -> config.bind("db", Db.class)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("db/timeout").hasMessageContaining("Optional");
    assertThatThrownBy(() -> config.bind("bad//prefix", Db.class)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bad//prefix");
  }
}
