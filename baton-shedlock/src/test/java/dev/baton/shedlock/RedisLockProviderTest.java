package dev.baton.shedlock;

import dev.baton.embedded.EmbeddedRedis;
import dev.baton.redis.RedisBaton;
import dev.baton.testkit.CloseAfterEach;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/** ShedLock's provider cases on Redis, each node a client of its own. */
class RedisLockProviderTest extends LockProviderContract {
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

  @Override
  BatonLockProvider newProvider(ScheduledExecutorService timer) {
    RedisBaton client = resources.closing(RedisBaton.connect(redis.uri()));
    return resources.closing(new BatonLockProvider(client::mutex, "shedlock:", timer));
  }
}
