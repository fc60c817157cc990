package dev.baton.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.embedded.EmbeddedRedis;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.LockLostException;
import dev.baton.redis.RedisBaton;
import dev.baton.testkit.CloseAfterEach;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The registry contract on Redis, and a lock whose key vanished while held. */
class RedisLockRegistryContractTest extends LockRegistryContract {
  private static EmbeddedRedis redis;
  @RegisterExtension
  final CloseAfterEach resources = new CloseAfterEach();

  @BeforeAll
  static void startServer() {
    redis = EmbeddedRedis.start();
  }

  @AfterAll
  static void stopServer() {
    redis.close();
  }

  private RedisBaton client() {
    return resources.closing(RedisBaton.builder().uri(redis.uri()).leaseTtl(Duration.ofSeconds(3))
        .renewEvery(Duration.ofMillis(300)).build());
  }

  @Override
  BatonLockRegistry newRegistry() {
    return new BatonLockRegistry(client()::mutex, LockKeyLayout.redis("registry:"));
  }

  @Test
  void unlock_afterTheKeyVanishedWhileHeld_lockLostAndRenewRefused() {
    BatonLockRegistry registry = newRegistry();
    Lock lock = registry.obtain("vanishing");
    lock.lock();
    Lease lease = registry.currentLease("vanishing").orElseThrow(); // per thread: Awaitility polls on another
    RedisClient raw = RedisClient.create(redis.uri());
    resources.closing(raw::shutdown);
    try (StatefulRedisConnection<String, String> connection = raw.connect()) {
      assertThat(connection.sync().del("registry:vanishing")).as("the lock's key").isEqualTo(1);
    }

    await().atMost(Duration.ofSeconds(20)).until(() -> lease.state() == LeaseState.LOST);

    assertThatThrownBy(() -> registry.renewLock("vanishing")).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
  }
}
