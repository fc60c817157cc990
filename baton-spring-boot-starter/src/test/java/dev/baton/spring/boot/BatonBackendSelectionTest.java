package dev.baton.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.Coordinator;
import dev.baton.embedded.EmbeddedRedis;
import dev.baton.embedded.EmbeddedZooKeeper;
import dev.baton.lock.Lease;
import dev.baton.redis.RedisBaton;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.integration.support.locks.LockRegistry;

/** {@code baton.backend}: application code asks for a {@link Coordinator} and gets the one store configured. */
class BatonBackendSelectionTest {
  private static EmbeddedRedis redis;
  private static EmbeddedZooKeeper zk;

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(BatonBackendAutoConfiguration.class, BatonAutoConfiguration.class,
          BatonRedisAutoConfiguration.class, BatonLockRegistryAutoConfiguration.class));

  @BeforeAll
  static void startServers() {
    redis = EmbeddedRedis.start();
    zk = EmbeddedZooKeeper.start();
  }

  @AfterAll
  static void stopServers() {
    redis.close();
    zk.close();
  }

  @Test
  void backendRedis_withBothStoresConfigured_theOneCoordinatorIsTheRedisClient() {
    runner.withPropertyValues("baton.backend=redis", "baton.redis.uri=" + redis.uri(),
        "baton.connect-string=" + zk.connectString()).run(context -> {
          assertThat(context).hasNotFailed().hasSingleBean(Coordinator.class).doesNotHaveBean(Baton.class);
          Coordinator coordinator = context.getBean(Coordinator.class);
          assertThat(coordinator).isInstanceOf(RedisBaton.class);
          assertThat(coordinator.backend()).isEqualTo("redis");
          try (Lease lease = coordinator.mutex("/locks/backend-redis").acquire(Duration.ofSeconds(10))) {
            assertThat(lease.isValid()).isTrue();
          }
          assertThat(context.getBean(LockRegistry.class)).as("the registry stands on the chosen store").isNotNull();
        });
  }

  @Test
  void backendZooKeeper_withBothStoresConfigured_theOneCoordinatorIsTheZooKeeperClient() {
    runner.withPropertyValues("baton.backend=zookeeper", "baton.redis.uri=" + redis.uri(),
        "baton.connect-string=" + zk.connectString()).run(context -> {
          assertThat(context).hasNotFailed().hasSingleBean(Coordinator.class).doesNotHaveBean(RedisBaton.class);
          Coordinator coordinator = context.getBean(Coordinator.class);
          assertThat(coordinator.backend()).isEqualTo("zookeeper");
          try (Lease lease = coordinator.mutex("/locks/backend-zk").acquire(Duration.ofSeconds(10))) {
            assertThat(lease.isValid()).isTrue();
          }
        });
  }

  @Test
  void backendUnset_oneStoreConfigured_isTheCoordinator() {
    runner.withPropertyValues("baton.redis.uri=" + redis.uri())
        .run(context -> assertThat(context.getBean(Coordinator.class).backend()).isEqualTo("redis"));
    runner.withPropertyValues("baton.connect-string=" + zk.connectString())
        .run(context -> assertThat(context.getBean(Coordinator.class).backend()).isEqualTo("zookeeper"));
  }

  @Test
  void backendNamedWithoutItsSettings_startFailsNamingThePropertyToSet() {
    runner.withPropertyValues("baton.backend=redis", "baton.connect-string=" + zk.connectString())
        .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
            .hasMessageContaining("baton.backend=redis needs baton.redis.uri"));
    runner.withPropertyValues("baton.backend=zookeeper", "baton.redis.uri=" + redis.uri())
        .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
            .hasMessageContaining("baton.backend=zookeeper needs baton.connect-string"));
    runner.withClassLoader(new FilteredClassLoader(RedisBaton.class))
        .withPropertyValues("baton.backend=redis", "baton.redis.uri=" + redis.uri())
        .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
            .hasMessageContaining("needs dev.baton:baton-redis on the classpath"));
  }

  @Test
  void backendOfUnknownName_startFailsNamingTheProperty() {
    runner.withPropertyValues("baton.backend=mongodb", "baton.connect-string=" + zk.connectString())
        .run(context -> assertThat(context).hasFailed().getFailure()
            .hasStackTraceContaining("baton.backend").hasStackTraceContaining("mongodb"));
  }
}
