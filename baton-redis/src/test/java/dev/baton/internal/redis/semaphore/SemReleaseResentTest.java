package dev.baton.internal.redis.semaphore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.embedded.EmbeddedRedis;
import dev.baton.internal.redis.RedisSession;
import dev.baton.internal.redis.RedisSettings;
import dev.baton.lock.Lease;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A release whose reply was lost is sent again ({@code LeaseHold} does, while the permits could
 * still be held): the release script runs twice. The first run gave the permit back and granted it
 * to the first in line; the second must find nothing to give back, and neither count the permit
 * again nor grant the next in line a permit that is not free.
 */
class SemReleaseResentTest {
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
        Duration.ofSeconds(2), Duration.ofSeconds(60), Duration.ofSeconds(20), Duration.ofMinutes(6)));
  }

  @AfterEach
  void stop() {
    session.close();
    rawConnection.close();
    rawClient.shutdown();
    redis.close();
  }

  private RedisCommands<String, String> raw() {
    return rawConnection.sync();
  }

  @Test
  void aReleaseSentAgainAfterALostReply_grantsNothingMore() throws Exception {
    RedisSemaphore semaphore = new RedisSemaphore(session, "lost", 1);
    Lease held = semaphore.acquire(Duration.ofSeconds(5));
    List<String> heldPermits = raw().zrange("{lost}:timeout", 0, -1);
    assertThat(heldPermits).hasSize(1);
    CompletableFuture<Lease> first = semaphore.acquireAsync();
    await().until(() -> raw().zcard("baton_sem_queue:{lost}") == 1);
    CompletableFuture<Lease> second = semaphore.acquireAsync();
    await().until(() -> raw().zcard("baton_sem_queue:{lost}") == 2);

    Long givenBack = semaphore.<Long>run(SemScripts.RELEASE, "", heldPermits.get(0)).get(5, TimeUnit.SECONDS);
    assertThat(givenBack).isEqualTo(1L);
    Lease firstLease = first.get(5, TimeUnit.SECONDS); // granted by that release, told on the grant channel
    Long again = semaphore.<Long>run(SemScripts.RELEASE, "", heldPermits.get(0)).get(5, TimeUnit.SECONDS);
    assertThat(again).isZero();
    assertThat(raw().get("lost")).isEqualTo("0");
    assertThat(raw().zcard("baton_sem_queue:{lost}")).as("the second still waits").isEqualTo(1);
    assertThat(raw().zcard("{lost}:timeout")).isEqualTo(1);
    assertThat(second).isNotDone();
    assertThat(firstLease.isValid()).isTrue();

    held.close(); // its own release: a third run, finding nothing either
    await().until(() -> held.state() == dev.baton.lock.LeaseState.RELEASED);
    firstLease.close(); // now the permit is free: the second is served
    second.get(5, TimeUnit.SECONDS).close();
    await().until(() -> "1".equals(raw().get("lost")));
  }
}
