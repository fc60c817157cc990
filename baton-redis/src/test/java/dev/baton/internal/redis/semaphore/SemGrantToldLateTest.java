package dev.baton.internal.redis.semaphore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.embedded.EmbeddedRedis;
import dev.baton.internal.redis.RedisSession;
import dev.baton.internal.redis.RedisSettings;
import dev.baton.lock.Lease;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A release granted a waiter while the notice of it was held up (a frozen link, a starved client),
 * the waiter's next attempt came after the grant and found nothing, since the permits had expired
 * meanwhile, and only then did the notice arrive. The lease it makes must count from the grant,
 * which came before that attempt: counting from the attempt (found by the 10-minute chaos run on
 * Redis) made it valid while the expired permits were another client's.
 */
class SemGrantToldLateTest {
  private static final long TTL_MILLIS = 2_000;

  private EmbeddedRedis redis;
  private RedisClient rawClient;
  private StatefulRedisConnection<String, String> rawConnection;
  private RedisSession session;

  @BeforeEach
  void start() {
    redis = EmbeddedRedis.start();
    rawClient = RedisClient.create(redis.uri());
    rawConnection = rawClient.connect();
    session = RedisSession.open(new RedisSettings(redis.uri(), null, null, false, null, null, Duration.ofSeconds(2),
        Duration.ofSeconds(2), Duration.ofMillis(TTL_MILLIS), Duration.ofMillis(600), Duration.ofMinutes(6)));
  }

  @AfterEach
  void stop() {
    session.close();
    rawConnection.close();
    rawClient.shutdown();
    redis.close();
  }

  private long serverMillis() {
    List<String> time = rawConnection.sync().time();
    return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
  }

  @Test
  void aGrantToldAfterALaterAttemptFoundNothing_isNotValidPastItsPermitsExpiry() throws Exception {
    RedisSemaphore semaphore = new RedisSemaphore(session, "told-late", 1);
    Lease held = semaphore.acquire(Duration.ofSeconds(5));
    SemAcquisition waiter = new SemAcquisition(semaphore, session, Thread.currentThread(), 1, true);
    CompletableFuture<SemHold> pending = waiter.start(-1);
    await().until(() -> waiter.lastAnsweredSentAt() != 0);

    long grantedAt = serverMillis(); // the grant whose notice is held up
    await().until(() -> serverMillis() > grantedAt + 100);
    long woken = System.nanoTime();
    waiter.wake(); // its next attempt: answered without a grant, as once the granted permits expired
    await().until(() -> waiter.lastAnsweredSentAt() >= woken);
    waiter.notified("1 " + (grantedAt + TTL_MILLIS)); // the notice, at last

    SemHold hold = pending.get(5, TimeUnit.SECONDS);
    assertThat(hold.validUntil()).as("validity of a grant whose permits expire at %s",
        Instant.ofEpochMilli(grantedAt + TTL_MILLIS)).isBeforeOrEqualTo(Instant.ofEpochMilli(grantedAt + TTL_MILLIS));
    hold.release();
    held.close();
  }
}
