package dev.baton.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.embedded.EmbeddedRedis;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.Mutex;
import dev.baton.redis.RedisBaton;
import dev.baton.redis.RedisMutexOptions;
import dev.baton.testkit.CloseAfterEach;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The same meters from a Redis client as from a ZooKeeper one: a scripted sequence against an
 * embedded Redis (stopped in the middle of one test), then the counts in a {@link SimpleMeterRegistry}.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RedisMicrometerObserverTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static EmbeddedRedis redis;
  @RegisterExtension
  final CloseAfterEach resources = new CloseAfterEach();
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final Meters read = new Meters(meters);

  @BeforeAll
  static void startServer() {
    redis = EmbeddedRedis.start();
  }

  @AfterAll
  static void stopServer() {
    redis.close();
  }

  private RedisBaton observed() {
    if (!redis.isRunning()) {
      redis.restart();
    }
    return resources.closing(RedisBaton.builder().uri(redis.uri())
        .leaseTtl(Duration.ofMillis(1500)).renewEvery(Duration.ofMillis(300))
        .observer(new MicrometerObserver(meters, PathTags.defaults())).build());
  }

  private long acquires(String outcome, String grant) {
    return read.acquires("mutex", "shop", outcome, grant);
  }

  private double count(String name, String... tags) {
    return read.count(name, tags);
  }

  @Test
  void scriptedLocking_queuedReentrantTimedOutAndHandedOver_countedUnderTheirTags() throws Exception {
    RedisBaton baton = observed();
    RedisBaton other = resources.closing(RedisBaton.connect(redis.uri()));
    Mutex mutex = baton.mutex("shop:orders:1");

    mutex.acquire(WAIT).close();
    try (Lease outer = mutex.acquire(WAIT); Lease inner = mutex.acquire(WAIT)) {
      assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
    }
    try (Lease theirs = other.mutex("shop:orders:2").acquire(WAIT)) {
      assertThat(baton.mutex("shop:orders:2").tryAcquire(Duration.ofMillis(100))).isEmpty();
    }
    Mutex shared = baton.mutex("shop:busy", RedisMutexOptions.defaults().withLocalHandOver(8));
    Meters.handOverOnce(shared, WAIT);

    assertThat(acquires("acquired", "queued")).isEqualTo(3);
    assertThat(acquires("acquired", "reentrant")).isEqualTo(1);
    assertThat(acquires("timeout", "none")).isEqualTo(1);
    assertThat(acquires("acquired", "local-hand-over")).isEqualTo(1);
    assertThat(count(MicrometerObserver.HAND_OVERS, "recipe", "mutex", "path", "shop")).isEqualTo(1);
    await().atMost(WAIT).untilAsserted(() -> {
      Timer held = meters.find(MicrometerObserver.HELD).tags("recipe", "mutex", "path", "shop").timer();
      assertThat(held).isNotNull();
      assertThat(held.count()).as("every lease closed, the reentrant one included").isEqualTo(5);
    });
  }

  @Test
  void serverStoppedWhileHeld_leaseLossesByCauseAndConnectionStates() {
    RedisBaton baton = observed();
    Lease lease = baton.mutex("shop:fragile").acquire(WAIT);

    redis.kill();
    await().atMost(WAIT).until(() -> lease.state() == LeaseState.LOST);
    redis.restart();

    await().atMost(WAIT).untilAsserted(() -> {
      read.assertOneSuspectThenLost("shop");
      assertThat(count(MicrometerObserver.SESSION_STATES, "state", "suspended")).isEqualTo(1);
      assertThat(count(MicrometerObserver.SESSION_STATES, "state", "lost")).isEqualTo(1);
      assertThat(count(MicrometerObserver.SESSION_STATES, "state", "reconnected")).isEqualTo(1);
    });
    lease.close();
    assertThat(meters.find(MicrometerObserver.HELD).timer()).as("a lost lease is no hold that ended in a release").isNull();
  }
}
