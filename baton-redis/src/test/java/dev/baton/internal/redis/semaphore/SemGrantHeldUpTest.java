package dev.baton.internal.redis.semaphore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.embedded.EmbeddedRedis;
import dev.baton.internal.redis.RedisSession;
import dev.baton.internal.redis.RedisSettings;
import dev.baton.lock.Lease;
import dev.baton.testkit.FaultProxy;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A release granted a waiter whose link was frozen (every byte held back, as the chaos run's holder
 * pause does): the notice of the grant came after the permits had expired on the server and gone
 * to another client. The lease it made was already past its validity when it was handed over, and
 * a holder that entered with it overlapped the permits' new holder (found twice by the 10-minute
 * Redis chaos run: entered, told LOST a fraction of a millisecond later). Such a grant must not be
 * handed over: the waiter waits on for a grant it can use.
 */
class SemGrantHeldUpTest {
  private static final long TTL_MILLIS = 1_000;
  /** How long the waiter's link holds every byte back: well past the TTL. */
  private static final Duration FROZEN = Duration.ofMillis(4_000);

  private EmbeddedRedis redis;
  private FaultProxy proxy;
  private RedisClient rawClient;
  private StatefulRedisConnection<String, String> rawConnection;
  private RedisSession direct;
  private RedisSession frozen;

  @BeforeEach
  void start() {
    redis = EmbeddedRedis.start();
    proxy = FaultProxy.start(new InetSocketAddress(redis.host(), redis.port()));
    rawClient = RedisClient.create(redis.uri());
    rawConnection = rawClient.connect();
    direct = RedisSession.open(settings(redis.uri()));
    frozen = RedisSession.open(settings("redis://" + proxy.connectString()));
  }

  /** A waiter lease of minutes: its re-checks (a third of it) never come during the test. */
  private static RedisSettings settings(String uri) {
    return new RedisSettings(uri, null, null, false, null, null, Duration.ofSeconds(10), Duration.ofSeconds(10),
        Duration.ofMillis(TTL_MILLIS), Duration.ofMillis(300), Duration.ofMinutes(6));
  }

  @AfterEach
  void stop() {
    frozen.close();
    direct.close();
    rawConnection.close();
    rawClient.shutdown();
    proxy.close();
    redis.close();
  }

  private long serverMillis() {
    List<String> time = rawConnection.sync().time();
    return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
  }

  @Test
  void aGrantToldAfterItsPermitsWentToAnother_isNotHandedOver() throws Exception {
    RedisSemaphore first = new RedisSemaphore(direct, "held-up", 1);
    RedisSemaphore theirs = new RedisSemaphore(frozen, "held-up", 1);
    String[] keys = first.keys();
    Lease held = first.acquire(Duration.ofSeconds(5));

    SemAcquisition waiter = new SemAcquisition(theirs, frozen, Thread.currentThread(), 1, true);
    CompletableFuture<SemHold> pending = waiter.start(-1);
    // Its first refusal subscribes it to the notices; then no attempt of its own may be on its way.
    await().until(() -> rawConnection.sync().pubsubNumsub(keys[7]).get(keys[7]) == 1L);
    long woken = System.nanoTime();
    waiter.wake();
    await().until(() -> waiter.lastAnsweredSentAt() >= woken);

    proxy.delay(FROZEN);
    held.close(); // the release grants the waiter and publishes the notice, which the frozen link holds back
    String permit = waiter.ownerId() + ":1";
    await().until(() -> rawConnection.sync().zscore(keys[1], permit) != null);
    long toldToken = Long.parseLong(rawConnection.sync().get(keys[5]));
    long expiry = rawConnection.sync().zscore(keys[1], permit).longValue();
    await().until(() -> serverMillis() > expiry);

    // The expired permits go to another client while the notice is still on its way.
    Lease next = first.tryAcquire(Duration.ofSeconds(5)).orElseThrow();
    long nextToken = next.fencingToken();
    assertThat(nextToken).isGreaterThan(toldToken);
    proxy.restore(); // for what is sent from now on; the notice keeps its place in the delay line

    // The notice comes: the waiter hands the stale grant over (the bug), or finds it gone and queues again.
    await().atMost(FROZEN.multipliedBy(3))
        .until(() -> pending.isDone() || rawConnection.sync().zscore(keys[3], waiter.member()) != null);
    next.close(); // the permit is free again: the waiter's next grant is one it can use
    SemHold hold = pending.get(10, TimeUnit.SECONDS);
    assertThat(hold.token()).as("token of the lease handed over (the held-up grant's was %s, the next holder's %s)",
        toldToken, nextToken).isGreaterThan(nextToken);
    hold.release();
  }
}
