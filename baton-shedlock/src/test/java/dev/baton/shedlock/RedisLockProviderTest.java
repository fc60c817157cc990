package dev.baton.shedlock;

import dev.baton.embedded.EmbeddedRedis;
import dev.baton.redis.RedisBaton;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/** ShedLock's provider cases on Redis, each node a client of its own. */
class RedisLockProviderTest extends LockProviderContract {
  private static EmbeddedRedis redis;
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @BeforeAll
  static void startServer() {
    redis = EmbeddedRedis.start();
  }

  @AfterAll
  static void stopServer() {
    redis.close();
  }

  @AfterEach
  void closeAll() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  @Override
  BatonLockProvider newProvider() {
    RedisBaton client = RedisBaton.connect(redis.uri());
    toClose.add(client);
    BatonLockProvider provider = new BatonLockProvider(client::mutex, "shedlock:");
    toClose.add(provider);
    return provider;
  }
}
