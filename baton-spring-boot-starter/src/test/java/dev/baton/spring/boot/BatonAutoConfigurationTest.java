package dev.baton.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.ClientClosedException;
import dev.baton.embedded.EmbeddedZooKeeper;
import dev.baton.testkit.ZooKeeperExtension;
import dev.baton.lock.Lease;
import dev.baton.shedlock.BatonLockProvider;
import dev.baton.spring.integration.BatonLockRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Instant;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.integration.support.locks.LockRegistry;

/** The starter's ZooKeeper side, each case in a context of its own against one embedded server. */
class BatonAutoConfigurationTest {
  @RegisterExtension
  static final ZooKeeperExtension zk = new ZooKeeperExtension();

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(BatonAutoConfiguration.class, BatonRedisAutoConfiguration.class,
          BatonLockRegistryAutoConfiguration.class, BatonShedLockAutoConfiguration.class,
          BatonMetricsAutoConfiguration.class));


  @Test
  void connectString_set_connectedClientWithNamespaceClosedWithTheContext() {
    AtomicReference<Baton> seen = new AtomicReference<>();
    runner.withPropertyValues("baton.connect-string=" + zk.connectString(), "baton.session-timeout=6s",
        "baton.namespace=/shop").run(context -> {
          assertThat(context).hasNotFailed().hasSingleBean(Baton.class);
          Baton baton = context.getBean(Baton.class);
          seen.set(baton);
          assertThat(baton.connectionState().isConnected()).isTrue();
          assertThat(baton.sessionTimeout()).isLessThanOrEqualTo(Duration.ofSeconds(6));
          try (Lease lease = baton.mutex("/locks/a").acquire(Duration.ofSeconds(10))) {
            assertThat(childrenOf("/shop/locks/a")).as("the lock lives under the namespace").hasSize(1);
          }
        });

    assertThatThrownBy(() -> seen.get().mutex("/locks/a")).isInstanceOf(ClientClosedException.class);
  }

  @Test
  void relaxedBinding_camelCaseAndUnitsInText_bound() {
    runner.withPropertyValues("baton.connectString=" + zk.connectString(), "baton.session-timeout=4000ms",
        "baton.connection-timeout=PT10S").run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(context.getBean(BatonProperties.class).getSessionTimeout()).isEqualTo(Duration.ofSeconds(4));
          assertThat(context.getBean(Baton.class).sessionTimeout()).isLessThanOrEqualTo(Duration.ofSeconds(4));
        });
  }

  @Test
  void noConnectString_noClientAndNoRegistry() {
    runner.run(context -> {
      assertThat(context).hasNotFailed().doesNotHaveBean(Baton.class).doesNotHaveBean(LockRegistry.class);
    });
  }

  @Test
  void applicationDefinesItsOwnClient_autoConfiguredOneBacksOff() {
    try (Baton own = Baton.connect(zk.connectString())) {
      runner.withPropertyValues("baton.connect-string=127.0.0.1:1").withBean(Baton.class, () -> own)
          .run(context -> assertThat(context).hasNotFailed().getBean(Baton.class).isSameAs(own));
    }
  }

  @Test
  void authUserWithoutPassword_startFailsNamingTheMissingProperty() {
    runner.withPropertyValues("baton.connect-string=" + zk.connectString(), "baton.auth.user=shop")
        .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("baton.auth.password"));
  }

  @Test
  void authUserAndPassword_clientStartsAndLocks() {
    runner.withPropertyValues("baton.connect-string=" + zk.connectString(), "baton.auth.user=shop",
        "baton.auth.password=secret").run(context -> {
          assertThat(context).hasNotFailed();
          try (Lease lease = context.getBean(Baton.class).mutex("/auth/lock").acquire(Duration.ofSeconds(10))) {
            assertThat(lease.isValid()).isTrue();
          }
        });
  }

  @Test
  void tlsTrustStoreThatDoesNotExist_startFailsNamingTheFile() {
    runner.withPropertyValues("baton.connect-string=" + zk.connectString(), "baton.tls.trust-store=/nonexistent/trust.p12",
        "baton.tls.trust-store-password=x").run(context -> assertThat(context).hasFailed().getFailure()
            .rootCause().isInstanceOf(IllegalArgumentException.class).hasMessageContaining("/nonexistent/trust.p12"));
  }

  @Test
  void serverGoesAway_healthTurnsDownWithTheState() {
    EmbeddedZooKeeper doomed = EmbeddedZooKeeper.start();
    runner.withPropertyValues("baton.connect-string=" + doomed.connectString(), "baton.session-timeout=4s")
        .run(context -> {
          Baton baton = context.getBean(Baton.class);
          assertThat(ClientHealth.of(baton).up()).isTrue();
          doomed.close();
          await().atMost(Duration.ofSeconds(20)).until(() -> !ClientHealth.of(baton).up());
          assertThat(ClientHealth.of(baton).details()).containsEntry("connectString", doomed.connectString())
              .containsKey("sessionId").extractingByKey("state").isNotEqualTo("CONNECTED");
        });
  }

  @Test
  void springIntegrationPresent_registryOnTheClientUnderItsRoot() {
    runner.withPropertyValues("baton.connect-string=" + zk.connectString(), "baton.lock-registry.root=/app-locks")
        .run(context -> {
          LockRegistry registry = context.getBean(LockRegistry.class);
          assertThat(registry).isInstanceOf(BatonLockRegistry.class);
          var lock = registry.obtain("order/42");
          lock.lock();
          try {
            assertThat(childrenOf("/app-locks/order%2F42")).hasSize(1);
          } finally {
            lock.unlock();
          }
        });
  }

  @Test
  void springIntegrationAbsent_clientWithoutRegistry() {
    runner.withClassLoader(new FilteredClassLoader("org.springframework.integration"))
        .withPropertyValues("baton.connect-string=" + zk.connectString())
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(Baton.class)
            .doesNotHaveBean("batonLockRegistry"));
  }

  @Test
  void registryDisabled_noRegistry() {
    runner.withPropertyValues("baton.connect-string=" + zk.connectString(), "baton.lock-registry.enabled=false")
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LockRegistry.class));
  }

  @Test
  void shedlockPresent_providerOnTheClientClosedWithTheContext() {
    AtomicReference<BatonLockProvider> seen = new AtomicReference<>();
    runner.withPropertyValues("baton.connect-string=" + zk.connectString()).run(context -> {
      LockProvider provider = context.getBean(LockProvider.class);
      assertThat(provider).isInstanceOf(BatonLockProvider.class);
      seen.set((BatonLockProvider) provider);
      assertThat(provider.lock(new LockConfiguration(Instant.now(), "nightly", Duration.ofMinutes(5), Duration.ofMinutes(5))))
          .isPresent();
      assertThat(childrenOf("/shedlock/nightly")).as("the job's lock node").isNotEmpty();
    });

    assertThat(seen.get().currentLease("nightly")).as("released with the context").isEmpty();
  }

  @Test
  void meterRegistryPresent_clientRecordsLockMetersWithBoundedPaths() {
    runner.withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
        .withPropertyValues("baton.connect-string=" + zk.connectString(), "baton.metrics.path-depth=2").run(context -> {
          context.getBean(Baton.class).mutex("/metered/orders/42").acquire(Duration.ofSeconds(10)).close();
          SimpleMeterRegistry meters = context.getBean(SimpleMeterRegistry.class);
          assertThat(meters.find("baton.lock.acquire").tags("recipe", "mutex", "path", "/metered/orders",
              "outcome", "acquired").timer()).isNotNull().extracting(t -> t.count()).isEqualTo(1L);
        });
  }

  @Test
  void metricsDisabled_clientRecordsNothing() {
    runner.withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
        .withPropertyValues("baton.connect-string=" + zk.connectString(), "baton.metrics.enabled=false").run(context -> {
          context.getBean(Baton.class).mutex("/metered/off").acquire(Duration.ofSeconds(10)).close();
          assertThat(context.getBean(SimpleMeterRegistry.class).find("baton.lock.acquire").timer()).isNull();
        });
  }

  @Test
  void configurationMetadata_listsThePropertiesForIdeCompletion() throws Exception {
    try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      assertThat(in).as("metadata generated by spring-boot-configuration-processor").isNotNull();
      String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      assertThat(json).contains("\"baton.connect-string\"", "\"baton.session-timeout\"", "\"baton.namespace\"",
          "\"baton.auth.user\"", "\"baton.tls.trust-store\"", "\"baton.redis.uri\"", "\"baton.redis.lease-ttl\"",
          "\"baton.lock-registry.layout\"", "\"baton.metrics.path-depth\"", "\"baton.shedlock.root\"", "The ensemble, as host:port",
          "\"baton.config.root\"", "\"baton.config.snapshot-file\"", "\"baton.config.history-versions\"",
          "\"baton.registry.base\"");
    }
  }

  private static java.util.List<String> childrenOf(String path) throws Exception {
    ZooKeeper raw = new ZooKeeper(zk.connectString(), 10_000, event -> { });
    try {
      await().atMost(Duration.ofSeconds(10)).until(() -> raw.getState().isConnected());
      return raw.getChildren(path, false);
    } finally {
      raw.close();
    }
  }
}
