package dev.baton.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.config.ConfigCenter;
import dev.baton.testkit.ZooKeeperExtension;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The starter's config center, each case in a context of its own against one embedded ZooKeeper. */
class BatonConfigAutoConfigurationTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  @RegisterExtension
  static final ZooKeeperExtension zk = new ZooKeeperExtension();

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(BatonAutoConfiguration.class, BatonMetricsAutoConfiguration.class,
          BatonConfigAutoConfiguration.class))
      .withPropertyValues("baton.connect-string=" + zk.connectString());

  @Test
  void configRoot_set_configCenterThereClosedWithTheContext() {
    AtomicReference<ConfigCenter> seen = new AtomicReference<>();
    runner.withPropertyValues("baton.config.root=/config/shop").run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(ConfigCenter.class);
      ConfigCenter config = context.getBean(ConfigCenter.class);
      seen.set(config);
      assertThat(config.prefix()).isEqualTo("/config/shop");
      config.set("db.pool", "10");
      try (Baton other = Baton.connect(zk.connectString()); ConfigCenter theirs = ConfigCenter.open(other, "/config/shop")) {
        assertThat(theirs.get("db.pool")).contains("10");
      }
      assertThat(config.isSynced()).isTrue();
    });

    assertThat(seen.get().isSynced()).as("closed with the context").isFalse();
  }

  @Test
  void relaxedNames_snapshotFileAndHistory_applied(@TempDir Path dir) {
    Path snapshot = dir.resolve("config.json");
    runner.withPropertyValues("baton.config.root=/config/relaxed", "baton.config.snapshot_file=" + snapshot,
        "baton.config.historyVersions=3").run(context -> {
          assertThat(context).hasNotFailed();
          ConfigCenter config = context.getBean(ConfigCenter.class);
          config.set("feature", "on");
          config.set("feature", "off");
          assertThat(config.history("feature")).as("history kept, as baton.config.history-versions asks").isNotEmpty();
          await().atMost(WAIT).until(() -> Files.exists(snapshot) && Files.readString(snapshot).contains("feature"));
        });
  }

  @Test
  void noConfigRoot_noConfigCenter() {
    runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ConfigCenter.class));
  }

  @Test
  void noConfigModule_noConfigCenter() {
    runner.withPropertyValues("baton.config.root=/config/absent")
        .withClassLoader(new FilteredClassLoader(ConfigCenter.class))
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ConfigCenter.class));
  }

  @Test
  void applicationsOwnConfigCenter_kept() {
    runner.withPropertyValues("baton.config.root=/config/auto")
        .withUserConfiguration(OwnConfig.class)
        .run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(context.getBeansOfType(ConfigCenter.class)).containsOnlyKeys("own");
          assertThat(context.getBean(ConfigCenter.class).prefix()).isEqualTo("/config/own");
        });
  }

  @Test
  void meterRegistryPresent_configUpdatesCounted() {
    runner.withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
        .withPropertyValues("baton.config.root=/config/metered").run(context -> {
          ConfigCenter config = context.getBean(ConfigCenter.class);
          config.create("a", "1");
          config.update("a", "2");
          SimpleMeterRegistry meters = context.getBean(SimpleMeterRegistry.class);
          await().atMost(WAIT).untilAsserted(() -> {
            Counter updated = meters.find("baton.config.updates").tags("prefix", "/config/metered", "change", "updated").counter();
            assertThat(updated).isNotNull();
            assertThat(updated.count()).isEqualTo(1);
          });
        });
  }

  @Test
  void metricsDisabled_configUpdatesNotCounted() {
    runner.withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
        .withPropertyValues("baton.config.root=/config/unmetered", "baton.metrics.enabled=false").run(context -> {
          ConfigCenter config = context.getBean(ConfigCenter.class);
          config.create("a", "1");
          await().atMost(WAIT).until(() -> config.get("a").isPresent());
          assertThat(context.getBean(SimpleMeterRegistry.class).find("baton.config.updates").counter()).isNull();
        });
  }

  @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
  static class OwnConfig {
    @org.springframework.context.annotation.Bean(destroyMethod = "close")
    ConfigCenter own(Baton baton) {
      return ConfigCenter.open(baton, "/config/own");
    }
  }
}
