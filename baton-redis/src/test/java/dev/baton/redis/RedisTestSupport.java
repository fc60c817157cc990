package dev.baton.redis;

import dev.baton.embedded.EmbeddedRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * A real redis-server for a test class (the one on the PATH, else the one embedded-redis ships),
 * emptied before each test; clients made through {@link #client} are closed after it.
 */
abstract class RedisTestSupport {
  static EmbeddedRedis redis;
  private static RedisClient rawClient;
  private static StatefulRedisConnection<String, String> rawConnection;
  private final List<AutoCloseable> closeAfterTest = new ArrayList<>();

  @BeforeAll
  static void startRedis() {
    redis = EmbeddedRedis.start();
    rawClient = RedisClient.create(redis.uri());
    rawConnection = rawClient.connect();
  }

  @AfterAll
  static void stopRedis() {
    if (rawConnection != null) {
      rawConnection.close();
      rawClient.shutdown(0, 1, TimeUnit.SECONDS);
    }
    if (redis != null) {
      redis.close();
    }
  }

  @BeforeEach
  void emptyRedis() {
    if (!redis.isRunning()) {
      redis.restart();
    }
    raw().flushall();
  }

  @AfterEach
  void closeClients() throws Exception {
    for (AutoCloseable closeable : closeAfterTest) {
      closeable.close();
    }
  }

  /** Plain commands on the test server, as any other program would send them. */
  static RedisCommands<String, String> raw() {
    return rawConnection.sync();
  }

  /** A client with a short TTL, so expiry cases run in about a second. */
  RedisBaton client() {
    return client(RedisBaton.builder().uri(redis.uri()).leaseTtl(Duration.ofMillis(1500))
        .renewEvery(Duration.ofMillis(300)).waiterLease(Duration.ofSeconds(3)));
  }

  RedisBaton client(RedisBaton.Builder builder) {
    RedisBaton baton = builder.build();
    closeAfterTest.add(0, baton);
    return baton;
  }

  <T extends AutoCloseable> T closeAfter(T closeable) {
    closeAfterTest.add(0, closeable);
    return closeable;
  }
}
