package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonException;
import dev.baton.lock.AcquireTimeoutException;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.Semaphore;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

class RedisSemaphoreTest extends RedisTestSupport {

  @Test
  void permits_areCounted_andAWaiterIsWokenByARelease() throws Exception {
    Semaphore pool = client().semaphore("pool", 2);
    Lease first = pool.acquire();
    Lease second = client().semaphore("pool", 2).acquire(Duration.ofSeconds(5));
    assertThat(raw().get("pool")).isEqualTo("0");
    assertThat(pool.holders()).extracting(dev.baton.lock.LockOwner::fencingToken)
        .containsExactlyInAnyOrder(first.fencingToken(), second.fencingToken());
    assertThat(pool.holders()).allSatisfy(owner -> assertThat(owner.pid()).isEqualTo(ProcessHandle.current().pid()));
    assertThat(pool.tryAcquire(Duration.ZERO)).isEmpty();

    // Its own re-check comes every 10 s: a grant within 5 s came through the release notice.
    RedisBaton slowRecheck = client(RedisBaton.builder().uri(redis.uri()).waiterLease(Duration.ofSeconds(30)));
    CompletableFuture<Lease> waiting = slowRecheck.semaphore("pool", 2).acquireAsync();
    await().until(() -> raw().zcard("baton_sem_queue:{pool}") == 1);
    first.close();
    try (Lease third = waiting.get(5, TimeUnit.SECONDS)) {
      assertThat(third.fencingToken()).isGreaterThan(second.fencingToken());
    }
    second.close();
    await().until(() -> "2".equals(raw().get("pool")));
  }

  @Test
  void severalPermits_allOrNothing_andATimeoutLeavesNothingBehind() {
    Semaphore pool = client().semaphore("bulk", 3);
    Lease one = pool.acquire();
    assertThatThrownBy(() -> client().semaphore("bulk", 3).acquire(3, Duration.ofMillis(200)))
        .isInstanceOf(AcquireTimeoutException.class);
    await().until(() -> raw().exists("baton_sem_queue:{bulk}") == 0);
    assertThat(raw().get("bulk")).isEqualTo("2"); // nothing of the three was kept
    try (Lease two = client().semaphore("bulk", 3).acquire(2, Duration.ofSeconds(5))) {
      assertThat(raw().get("bulk")).isEqualTo("0");
      assertThat(raw().zcard("{bulk}:timeout")).isEqualTo(3);
    }
    one.close();
    await().until(() -> "3".equals(raw().get("bulk")));
    assertThatThrownBy(() -> pool.acquire(4, Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("between 1 and 3");
  }

  @Test
  void aCrashedHoldersPermits_comeBackWhenTheyExpire_andItsLeaseIsLost() throws Exception {
    Semaphore pool = client().semaphore("crash", 1);
    Lease held = pool.acquire();
    raw().del("{crash}:timeout"); // as if its permit had expired without renewal
    await().atMost(Duration.ofSeconds(10)).until(() -> held.state() == LeaseState.LOST);
    held.close();
    raw().set("crash", "0");
    raw().zadd("{crash}:timeout", 1, "dead-holder"); // expired long ago: comes back on the next attempt
    try (Lease next = client().semaphore("crash", 1).acquire(Duration.ofSeconds(5))) {
      assertThat(next.isValid()).isTrue();
    }
  }

  @Test
  void aKeyOfAnotherKind_underTheName_isRefusedNamingIt_andKept() {
    raw().hset("not-a-count", "f", "1");
    assertThatThrownBy(() -> client().semaphore("not-a-count", 2).acquire(Duration.ofSeconds(1)))
        .isInstanceOf(BatonException.class).hasMessageContaining("the key not-a-count holds a hash");
    assertThat(raw().hget("not-a-count", "f")).isEqualTo("1");
    raw().set("words", "many");
    assertThatThrownBy(() -> client().semaphore("words", 2).acquire(Duration.ofSeconds(1)))
        .hasMessageContaining("the permit count words holds \"many\"");
    assertThat(raw().get("words")).isEqualTo("many");
    assertThatThrownBy(() -> client().semaphore("x", 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("permits must be at least 1");
  }

  @Test
  void redissonsPermitExpirableSemaphore_sharesThePermits_bothWays() throws Exception {
    Config config = new Config();
    config.useSingleServer().setAddress(redis.uri()).setConnectionMinimumIdleSize(1)
        .setSubscriptionConnectionMinimumIdleSize(1);
    RedissonClient redisson = Redisson.create(config);
    ExecutorService redissonThread = Executors.newSingleThreadExecutor();
    try {
      RPermitExpirableSemaphore theirs = redisson.getPermitExpirableSemaphore("shared");
      assertThat(theirs.trySetPermits(2)).isTrue();
      Semaphore mine = client().semaphore("shared", 2);
      Lease baton = mine.acquire();
      String redissons = theirs.tryAcquire(); // the second permit
      assertThat(redissons).isNotNull();
      assertThat(theirs.tryAcquire()).as("no third permit for Redisson").isNull();
      assertThat(mine.tryAcquire(Duration.ZERO)).as("no third permit for Baton").isEmpty();

      CompletableFuture<Lease> waiting = mine.acquireAsync();
      await().until(() -> raw().zcard("baton_sem_queue:{shared}") == 1);
      theirs.release(redissons);
      Lease handed = waiting.get(10, TimeUnit.SECONDS); // woken by Redisson's release on its channel
      baton.close();
      await().until(() -> theirs.availablePermits() == 1);
      String again = redissonThread.submit(() -> theirs.tryAcquire(5, TimeUnit.SECONDS)).get(10, TimeUnit.SECONDS);
      assertThat(again).isNotNull();
      handed.close();
      theirs.release(again);
    } finally {
      redissonThread.shutdownNow();
      redisson.shutdown();
    }
  }
}
