package dev.baton.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.Baton;
import dev.baton.ClientClosedException;
import dev.baton.embedded.EmbeddedRedis;
import dev.baton.embedded.EmbeddedZooKeeper;
import dev.baton.lock.Lease;
import dev.baton.redis.RedisBaton;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.integration.support.locks.LockRegistry;

/** The starter's Redis side, against an embedded redis-server (and ZooKeeper where both are configured). */
class BatonRedisAutoConfigurationTest {
  private static EmbeddedRedis redis;
  private static EmbeddedZooKeeper zk;

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(BatonAutoConfiguration.class, BatonRedisAutoConfiguration.class,
          BatonLockRegistryAutoConfiguration.class));

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
  void redisUri_set_clientWithItsSettingsClosedWithTheContext() {
    AtomicReference<RedisBaton> seen = new AtomicReference<>();
    runner.withPropertyValues("baton.redis.uri=" + redis.uri(), "baton.redis.lease-ttl=6s", "baton.redis.renew-every=1s")
        .run(context -> {
          assertThat(context).hasNotFailed().hasSingleBean(RedisBaton.class).doesNotHaveBean(Baton.class);
          RedisBaton client = context.getBean(RedisBaton.class);
          seen.set(client);
          try (Lease lease = client.mutex("ctx:lock").acquire(Duration.ofSeconds(10))) {
            assertThat(pttl("ctx:lock")).as("the lease TTL from baton.redis.lease-ttl").isBetween(1L, 6000L);
          }
        });

    assertThatThrownBy(() -> seen.get().mutex("ctx:lock")).isInstanceOf(ClientClosedException.class);
  }

  @Test
  void redisOnly_registryStandsOnRedisUnderItsPrefix() {
    runner.withPropertyValues("baton.redis.uri=" + redis.uri()).run(context -> {
      Lock lock = context.getBean(LockRegistry.class).obtain("job-1");
      lock.lock();
      try {
        assertThat(pttl("locks:job-1")).isPositive();
      } finally {
        lock.unlock();
      }
    });
  }

  @Test
  void bothClients_registryOnZooKeeperUnlessBackendIsRedis() {
    runner.withPropertyValues("baton.redis.uri=" + redis.uri(), "baton.connect-string=" + zk.connectString())
        .run(context -> {
          Lock lock = context.getBean(LockRegistry.class).obtain("job-2");
          lock.lock();
          try {
            assertThat(pttl("locks:job-2")).as("no Redis key").isEqualTo(-2L);
          } finally {
            lock.unlock();
          }
        });
    runner.withPropertyValues("baton.redis.uri=" + redis.uri(), "baton.connect-string=" + zk.connectString(),
        "baton.lock-registry.backend=redis").run(context -> {
          Lock lock = context.getBean(LockRegistry.class).obtain("job-3");
          lock.lock();
          try {
            assertThat(pttl("locks:job-3")).isPositive();
          } finally {
            lock.unlock();
          }
        });
  }

  @Test
  void redisWithZooKeeperLayout_startFailsSayingTheLayoutIsZooKeepers() {
    runner.withPropertyValues("baton.redis.uri=" + redis.uri(), "baton.lock-registry.layout=zookeeper-lock-registry")
        .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
            .hasMessageContaining("zookeeper-lock-registry is a ZooKeeper layout"));
  }

  @Test
  void batonRedisAbsent_noRedisClientEvenWithAUri() {
    runner.withClassLoader(new FilteredClassLoader(RedisBaton.class)).withPropertyValues("baton.redis.uri=" + redis.uri())
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("redisBaton")
            .doesNotHaveBean(LockRegistry.class));
  }

  private static long pttl(String key) {
    RedisClient raw = RedisClient.create(redis.uri());
    try (StatefulRedisConnection<String, String> connection = raw.connect()) {
      return connection.sync().pttl(key);
    } finally {
      raw.shutdown();
    }
  }
}
