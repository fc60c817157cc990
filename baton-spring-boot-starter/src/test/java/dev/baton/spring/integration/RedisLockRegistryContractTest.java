package dev.baton.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.embedded.EmbeddedRedis;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.LockLostException;
import dev.baton.lock.MutexLock;
import dev.baton.redis.RedisBaton;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The registry contract on Redis, and a lock whose key vanished while held. */
class RedisLockRegistryContractTest extends LockRegistryContract {
  private static EmbeddedRedis redis;
  private final List<AutoCloseable> clients = new ArrayList<>();

  @BeforeAll
  static void startServer() {
    redis = EmbeddedRedis.start();
  }

  @AfterAll
  static void stopServer() {
    redis.close();
  }

  @AfterEach
  void closeClients() throws Exception {
    for (int i = clients.size() - 1; i >= 0; i--) {
      clients.get(i).close();
    }
  }

  private RedisBaton client() {
    RedisBaton client = RedisBaton.builder().uri(redis.uri()).leaseTtl(Duration.ofSeconds(3))
        .renewEvery(Duration.ofMillis(300)).build();
    clients.add(client);
    return client;
  }

  @Override
  BatonLockRegistry newRegistry() {
    return new BatonLockRegistry(client()::mutex, LockKeyLayout.redis("registry:"));
  }

  @Test
  void unlock_afterTheKeyVanishedWhileHeld_lockLostAndRenewRefused() {
    BatonLockRegistry registry = newRegistry();
    MutexLock lock = (MutexLock) registry.obtain("vanishing");
    lock.lock();
    Lease lease = lock.currentLease().orElseThrow(); // per thread: Awaitility polls on another
    RedisClient raw = RedisClient.create(redis.uri());
    clients.add(raw::shutdown);
    try (StatefulRedisConnection<String, String> connection = raw.connect()) {
      assertThat(connection.sync().del("registry:vanishing")).as("the lock's key").isEqualTo(1);
    }

    await().atMost(Duration.ofSeconds(20)).until(() -> lease.state() == LeaseState.LOST);

    assertThatThrownBy(() -> registry.renewLock("vanishing")).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
  }
}
