package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The lock's queue in Redis when its entries, its deadlines or its wake-ups go wrong. */
class WaiterQueueTest extends RedisTestSupport {
  private static final RedisMutexOptions REDISSON = RedisMutexOptions.defaults().withLayout(RedisLockLayout.REDISSON);
  /** A waiter's entry as another client writes it, whose process is gone. */
  private static final String CRASHED = "{\"id\":\"crashed:1\",\"host\":\"gone\",\"pid\":1,\"start\":1,\"thread\":\"t\"}";

  private static long serverMillis() {
    List<String> time = raw().time();
    return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
  }

  /** How many times the server ran a lock script since its statistics were reset. */
  private static long scriptCalls() {
    long calls = 0;
    Matcher m = Pattern.compile("cmdstat_(?:evalsha|eval):calls=(\\d+)").matcher(raw().info("commandstats"));
    while (m.find()) {
      calls += Long.parseLong(m.group(1));
    }
    return calls;
  }

  @Test
  void redissonLayout_aWaiterBehindACrashedHead_doesNotWakeItselfInALoop() throws Exception {
    // The crashed head's place lives until its deadline, a second and a half from now.
    long now = serverMillis();
    raw().zadd("baton_lock_queue:{behind-crashed}", now, CRASHED);
    raw().zadd("baton_lock_alive:{behind-crashed}", now + 1500, CRASHED);
    raw().configResetstat();

    try (Lease lease = client().mutex("behind-crashed", REDISSON).acquire(Duration.ofSeconds(10))) {
      // A re-check a third of the waiter lease (one second) apart, and a wake-up or two: a handful.
      assertThat(scriptCalls()).isLessThan(30);
    }
  }

  @Test
  void manyTimedOutTries_leaveNoListenerBehind_soTheNextWaiterHearsTheRelease() throws Exception {
    // Long leases: a waiter first in line re-checks only every 20 s, so it is the release notice that wakes it.
    RedisBaton.Builder longLeases = RedisBaton.builder().uri(redis.uri()).leaseTtl(Duration.ofSeconds(60))
        .waiterLease(Duration.ofSeconds(60));
    Lease held = client(longLeases).mutex("leaky", REDISSON).acquire();
    Mutex mutex = client(longLeases).mutex("leaky", REDISSON);
    assertThat(mutex.tryAcquire(Duration.ofMillis(200))).isEmpty(); // the release channel is subscribed from now on
    for (int i = 0; i < 500; i++) {
      assertThat(mutex.tryAcquire(Duration.ofNanos(1))).isEmpty();
    }
    CompletableFuture<Lease> waiter = mutex.acquireAsync();
    await().atMost(Duration.ofSeconds(10)).until(() -> mutex.waiters().size() == 1);

    held.close();

    try (Lease lease = waiter.get(10, TimeUnit.SECONDS)) {
      assertThat(lease.isValid()).isTrue();
    }
  }

  @Test
  void aHeadWithoutADeadline_isSwept_soTheFreeLockIsGranted() {
    long now = serverMillis();
    raw().zadd("baton_lock_queue:{orphaned}", now, CRASHED);
    raw().zadd("baton_lock_alive:{orphaned}", now + 60_000, CRASHED);
    raw().del("baton_lock_alive:{orphaned}"); // evicted, or deleted by an operator: the head has no deadline now

    try (Lease lease = client().mutex("orphaned").acquire(Duration.ofSeconds(10))) {
      assertThat(lease.isValid()).isTrue();
    }
  }
}
