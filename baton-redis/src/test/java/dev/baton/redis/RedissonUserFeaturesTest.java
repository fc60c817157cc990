package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonException;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.Mutex;
import dev.baton.lock.StaleTokenException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * What a Redisson user reaches for: a lease time per acquisition, {@code isLocked()}, an operator's
 * {@code forceUnlock}, and a fenced write on Redis itself.
 */
class RedissonUserFeaturesTest extends RedisTestSupport {

  @Test
  void leaseTime_holdsWithoutRenewal_andTheLockFreesItselfWhenItEnds() throws Exception {
    RedisBaton baton = client();
    Mutex timed = baton.mutex("timed", RedisMutexOptions.defaults().withLeaseTime(Duration.ofMillis(400)));
    Lease lease = timed.acquire();
    // One-sided, so a slow machine cannot break it: never valid for longer than the lease time asked.
    assertThat(Duration.between(Instant.now(), lease.validUntil())).isLessThanOrEqualTo(Duration.ofMillis(400));
    assertThat(raw().pttl("timed")).isLessThanOrEqualTo(400);

    await().atMost(Duration.ofSeconds(10)).until(() -> lease.state() == LeaseState.LOST);
    await().atMost(Duration.ofSeconds(10)).until(() -> raw().exists("timed") == 0); // not renewed: Redis freed it
    try (Lease next = client().mutex("timed").acquire(Duration.ofSeconds(5))) {
      assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
    }
    lease.close();
  }

  @Test
  void leaseTime_releasedBeforeItEnds_freesTheLockAtOnce() {
    Mutex timed = client().mutex("early", RedisMutexOptions.defaults().withLeaseTime(Duration.ofSeconds(30)));
    try (Lease lease = timed.acquire()) {
      assertThat(lease.state()).isEqualTo(LeaseState.HELD);
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> raw().exists("early") == 0);
  }

  @Test
  void leaseTime_underTheFloor_isRefusedNamingIt() {
    assertThatThrownBy(() -> RedisMutexOptions.defaults().withLeaseTime(Duration.ofMillis(1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseTime must be at least 10 ms, was 1 ms");
    assertThatThrownBy(() -> RedisMutexOptions.defaults().withLeaseTime(null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("leaseTime");
  }

  @Test
  void isLocked_seesEitherLayout_andRedissonsLock_andRefusesAKeyThatIsNoLock() throws Exception {
    RedisBaton baton = client();
    assertThat(baton.isLocked("stock")).isFalse();
    Lease plain = baton.mutex("stock").acquire();
    assertThat(baton.isLocked("stock")).isTrue();
    plain.close();
    await().atMost(Duration.ofSeconds(10)).until(() -> !baton.isLocked("stock"));

    try (Lease redissonLayout = baton.mutex("orders", RedisMutexOptions.defaults().withLayout(RedisLockLayout.REDISSON))
        .acquire()) {
      assertThat(baton.isLocked("orders")).isTrue();
    }

    RedissonClient redisson = redisson();
    ExecutorService redissonThread = Executors.newSingleThreadExecutor();
    try {
      RLock rlock = redisson.getLock("payments");
      redissonThread.submit(() -> rlock.lock()).get(10, TimeUnit.SECONDS);
      assertThat(baton.isLocked("payments")).isTrue();
      redissonThread.submit(rlock::unlock).get(10, TimeUnit.SECONDS);
      assertThat(baton.isLocked("payments")).isFalse();
    } finally {
      redissonThread.shutdownNow();
      redisson.shutdown();
    }

    raw().rpush("queue", "a");
    assertThatThrownBy(() -> baton.isLocked("queue")).isInstanceOf(BatonException.class)
        .hasMessageContaining("The key queue").hasMessageContaining("holds a list, not a lock");
  }

  @Test
  void forceUnlock_letsTheNextHolderIn_withALargerToken_andTheOldHoldersFencedWritesAreStale() throws Exception {
    RedisBaton stuck = client();
    Lease old = stuck.mutex("sku-42").acquire();
    stuck.fencedSet("stock:sku-42", "10", old.fencingToken());

    RedisBaton other = client();
    CompletableFuture<Lease> waiting = other.mutex("sku-42").acquireAsync();
    await().until(() -> other.mutex("sku-42").waiters().size() == 1);

    RedisBaton operator = client();
    assertThat(operator.forceUnlock("sku-42")).isTrue();

    Lease next = waiting.get(10, TimeUnit.SECONDS); // woken by the release notice
    assertThat(next.fencingToken()).isGreaterThan(old.fencingToken());
    other.fencedSet("stock:sku-42", "9", next.fencingToken());
    assertThatThrownBy(() -> stuck.fencedSet("stock:sku-42", "11", old.fencingToken()))
        .isInstanceOf(StaleTokenException.class)
        .hasMessageContaining(Long.toString(old.fencingToken()))
        .hasMessageContaining(Long.toString(next.fencingToken()));
    assertThat(raw().get("stock:sku-42")).isEqualTo("9");

    await().atMost(Duration.ofSeconds(10)).until(() -> old.state() == LeaseState.LOST); // its next renewal
    assertThat(next.state()).isEqualTo(LeaseState.HELD);
    old.close(); // deletes nothing of the new holder's
    assertThat(raw().exists("sku-42")).isEqualTo(1);
    next.close();
    assertThat(operator.forceUnlock("free")).isFalse();
  }

  @Test
  void forceUnlock_ofRedissonsLock_freesIt_andAKeyThatIsNoLockIsKept() throws Exception {
    RedissonClient redisson = redisson();
    ExecutorService redissonThread = Executors.newSingleThreadExecutor();
    try {
      RLock rlock = redisson.getLock("jobs");
      redissonThread.submit(() -> rlock.lock()).get(10, TimeUnit.SECONDS);
      assertThat(client().forceUnlock("jobs")).isTrue();
      assertThat(rlock.isLocked()).isFalse();
    } finally {
      redissonThread.shutdownNow();
      redisson.shutdown();
    }
    raw().sadd("members", "a");
    assertThatThrownBy(() -> client().forceUnlock("members")).isInstanceOf(BatonException.class)
        .hasMessageContaining("the key members holds a set, not a lock");
    assertThat(raw().smembers("members")).containsExactly("a");
  }

  @Test
  void fencedSet_appliesNewerAndEqualTokens_refusesOlderOnes() {
    RedisBaton baton = client();
    baton.fencedSet("balance", "100", 5);
    baton.fencedSet("balance", "90", 5); // the same holder writes again
    baton.fencedSet("balance", "80", 7);
    assertThatThrownBy(() -> baton.fencedSet("balance", "999", 6))
        .isInstanceOfSatisfying(StaleTokenException.class, e -> {
          assertThat(e.token()).isEqualTo(6);
          assertThat(e.highestToken()).isEqualTo(7);
          assertThat(e.resource()).isEqualTo("balance");
        });
    assertThat(raw().get("balance")).isEqualTo("80");
    assertThat(raw().get("baton_fence:{balance}")).isEqualTo("7");
  }

  @Test
  void fencedSet_badInput_isRefusedNamingTheKey_andNothingIsWritten() {
    RedisBaton baton = client();
    raw().hset("profile", "name", "x");
    assertThatThrownBy(() -> baton.fencedSet("profile", "v", 1)).isInstanceOf(BatonException.class)
        .hasMessageContaining("the key profile holds a hash");
    assertThat(raw().hget("profile", "name")).isEqualTo("x");

    raw().set("baton_fence:{odd}", "nope");
    assertThatThrownBy(() -> baton.fencedSet("odd", "v", 1)).isInstanceOf(BatonException.class)
        .hasMessageContaining("the fence baton_fence:{odd} holds \"nope\", not a token");
    assertThat(raw().exists("odd")).isZero();
    assertThat(raw().get("baton_fence:{odd}")).isEqualTo("nope");

    assertThatThrownBy(() -> baton.fencedSet("k", "v", -1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("token must not be negative");
    assertThatThrownBy(() -> baton.fencedSet("", "v", 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key must not be empty");
  }

  private static RedissonClient redisson() {
    Config config = new Config();
    config.useSingleServer().setAddress(redis.uri()).setConnectionMinimumIdleSize(1)
        .setSubscriptionConnectionMinimumIdleSize(1);
    return Redisson.create(config);
  }
}
