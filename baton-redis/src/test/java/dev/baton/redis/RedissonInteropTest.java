package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.lock.Lease;
import dev.baton.lock.LockOwner;
import dev.baton.lock.Mutex;
import dev.baton.testkit.MutualExclusionChecker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** Baton in Redisson's layout against Redisson's own RLock and RFencedLock on the same names. */
class RedissonInteropTest extends RedisTestSupport {
  private static final RedisMutexOptions REDISSON = RedisMutexOptions.defaults().withLayout(RedisLockLayout.REDISSON);
  private RedissonClient redisson;

  @BeforeEach
  void startRedisson() {
    Config config = new Config();
    config.useSingleServer().setAddress(redis.uri()).setConnectionMinimumIdleSize(1)
        .setSubscriptionConnectionMinimumIdleSize(1);
    redisson = Redisson.create(config);
  }

  @AfterEach
  void stopRedisson() {
    redisson.shutdown();
  }

  /**
   * A client whose own re-check comes late (30 s lease, re-check every 10 s), so a hand-over seen
   * within seconds came through the release channel.
   */
  private RedisBaton slowRecheckClient() {
    return client(RedisBaton.builder().uri(redis.uri()).waiterLease(Duration.ofSeconds(30)));
  }

  @Test
  void redissonHolds_batonIsKeptOut_andIsHandedTheLockOnRedissonsUnlock() throws Exception {
    RLock rlock = redisson.getLock("payments");
    ExecutorService redissonThread = Executors.newSingleThreadExecutor();
    try {
      redissonThread.submit(() -> rlock.lock()).get(10, TimeUnit.SECONDS);
      Mutex mutex = slowRecheckClient().mutex("payments", REDISSON);
      assertThat(mutex.tryAcquire(Duration.ZERO)).isEmpty();
      assertThat(mutex.holder()).isPresent();

      CompletableFuture<Lease> waiting = mutex.acquireAsync();
      await().until(() -> mutex.waiters().size() == 1);
      redissonThread.submit(rlock::unlock).get(10, TimeUnit.SECONDS);

      try (Lease lease = waiting.get(5, TimeUnit.SECONDS)) {
        assertThat(redissonThread.submit(() -> rlock.tryLock()).get(10, TimeUnit.SECONDS)).isFalse();
        LockOwner holder = mutex.holder().orElseThrow();
        assertThat(holder.pid()).isEqualTo(ProcessHandle.current().pid());
        assertThat(holder.fencingToken()).isEqualTo(lease.fencingToken());
      }
    } finally {
      redissonThread.shutdownNow();
    }
  }

  @Test
  void batonHolds_redissonIsKeptOut_andIsHandedTheLockOnBatonsRelease() throws Exception {
    RedisBaton baton = client(RedisBaton.builder().uri(redis.uri())); // 30 s TTL: no expiry helps
    Lease lease = baton.mutex("payments", REDISSON).acquire();
    RLock rlock = redisson.getLock("payments");
    assertThat(rlock.isLocked()).isTrue();
    ExecutorService redissonThread = Executors.newSingleThreadExecutor();
    try {
      assertThat(redissonThread.submit(() -> rlock.tryLock()).get(10, TimeUnit.SECONDS)).isFalse();
      Future<?> waiting = redissonThread.submit(() -> rlock.lock());
      // Redisson's waiter listens on its channel once it found the lock taken.
      await().until(() -> raw().pubsubNumsub("redisson_lock__channel:{payments}").values().stream()
          .anyMatch(n -> n > 0));
      lease.close();
      waiting.get(5, TimeUnit.SECONDS);
      assertThat(rlock.isLocked()).isTrue();
      assertThat(baton.mutex("payments", REDISSON).tryAcquire(Duration.ZERO)).isEmpty();
      redissonThread.submit(rlock::unlock).get(10, TimeUnit.SECONDS);
    } finally {
      redissonThread.shutdownNow();
    }
  }

  @Test
  void fencingTokens_growAcrossRedissonsFencedLockAndBaton() throws Exception {
    RFencedLock fenced = redisson.getFencedLock("fenced");
    ExecutorService redissonThread = Executors.newSingleThreadExecutor();
    try {
      Long redissonToken = redissonThread.submit(() -> fenced.lockAndGetToken()).get(10, TimeUnit.SECONDS);
      redissonThread.submit(fenced::unlock).get(10, TimeUnit.SECONDS);
      long batonToken;
      try (Lease lease = client().mutex("fenced", REDISSON).acquire()) {
        batonToken = lease.fencingToken();
      }
      Long later = redissonThread.submit(() -> fenced.lockAndGetToken()).get(10, TimeUnit.SECONDS);
      redissonThread.submit(fenced::unlock).get(10, TimeUnit.SECONDS);
      assertThat(batonToken).isGreaterThan(redissonToken);
      assertThat(later).isGreaterThan(batonToken);
    } finally {
      redissonThread.shutdownNow();
    }
  }

  @Test
  void mutualExclusion_andGrowingTokens_betweenRedissonAndBatonClients() throws Exception {
    MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
    List<Callable<Void>> workers = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      RFencedLock fenced = redisson.getFencedLock("mixed");
      String redissonName = "redisson-" + i;
      workers.add(() -> {
        for (int n = 0; n < 30; n++) {
          Long token = fenced.lockAndGetToken();
          try (MutualExclusionChecker.Section section = checker.enter(redissonName, token)) {
            Thread.yield();
          } finally {
            fenced.unlock();
          }
        }
        return null;
      });
      workers.add(Workers.batonLoop(client().mutex("mixed", REDISSON), checker, "baton-" + i, 30));
    }
    Workers.runAll(workers);
    checker.assertNoViolations();
    assertThat(checker.sectionCount()).isEqualTo(120);
  }
}
