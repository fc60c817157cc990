package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.lock.Lease;
import dev.baton.lock.ReadWriteLock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RReadWriteLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** Baton's read-write lock against Redisson's RReadWriteLock on the same names: exclusion and hand-over both ways. */
class RedissonReadWriteLockInteropTest extends RedisTestSupport {
  private RedissonClient redisson;
  /** Redisson's locks belong to the thread that took them: one thread for all of Redisson's calls. */
  private ExecutorService redissonThread;

  @BeforeEach
  void startRedisson() {
    Config config = new Config();
    config.useSingleServer().setAddress(redis.uri()).setConnectionMinimumIdleSize(1)
        .setSubscriptionConnectionMinimumIdleSize(1);
    redisson = Redisson.create(config);
    redissonThread = Executors.newSingleThreadExecutor();
  }

  @AfterEach
  void stopRedisson() {
    redissonThread.shutdownNow();
    redisson.shutdown();
  }

  private <T> T onRedisson(java.util.concurrent.Callable<T> call) throws Exception {
    return redissonThread.submit(call).get(10, TimeUnit.SECONDS);
  }

  /** A client whose own re-check comes late (every 10 s), so a hand-over within seconds came through the channel. */
  private RedisBaton slowRecheckClient() {
    return client(RedisBaton.builder().uri(redis.uri()).waiterLease(Duration.ofSeconds(30)));
  }

  @Test
  void redissonWrites_batonIsKeptOut_andIsHandedTheLockOnRedissonsUnlock() throws Exception {
    RReadWriteLock theirs = redisson.getReadWriteLock("catalog");
    onRedisson(() -> {
      theirs.writeLock().lock();
      return null;
    });
    ReadWriteLock mine = slowRecheckClient().readWriteLock("catalog");
    assertThat(mine.readLock().tryAcquire(Duration.ZERO)).isEmpty();
    assertThat(mine.writeLock().tryAcquire(Duration.ZERO)).isEmpty();

    CompletableFuture<Lease> reader = mine.readLock().acquireAsync();
    await().until(() -> mine.waiters().size() == 1);
    onRedisson(() -> {
      theirs.writeLock().unlock();
      return null;
    });
    try (Lease read = reader.get(5, TimeUnit.SECONDS)) {
      assertThat(read.isValid()).isTrue();
      assertThat(onRedisson(() -> theirs.writeLock().tryLock())).isFalse();
      assertThat(onRedisson(() -> theirs.readLock().tryLock())).as("readers share across clients").isTrue();
      onRedisson(() -> {
        theirs.readLock().unlock();
        return null;
      });
    }
  }

  @Test
  void batonWrites_redissonIsKeptOut_andGetsTheLockOnBatonsRelease() throws Exception {
    RReadWriteLock theirs = redisson.getReadWriteLock("ledger");
    Lease write = client().readWriteLock("ledger").writeLock().acquire();
    assertThat(onRedisson(() -> theirs.readLock().tryLock())).isFalse();
    assertThat(onRedisson(() -> theirs.writeLock().tryLock())).isFalse();

    CompletableFuture<Boolean> redissonWriter = CompletableFuture.supplyAsync(() -> {
      try {
        return theirs.writeLock().tryLock(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    }, redissonThread);
    write.close();
    assertThat(redissonWriter.get(10, TimeUnit.SECONDS)).isTrue();
    assertThat(client().readWriteLock("ledger").readLock().tryAcquire(Duration.ZERO)).isEmpty();
    onRedisson(() -> {
      theirs.writeLock().unlock();
      return null;
    });
    await().until(() -> raw().exists("ledger") == 0);
  }

  @Test
  void redissonReads_batonWriterWaits_andIsHandedTheLockOnRedissonsUnlock() throws Exception {
    RReadWriteLock theirs = redisson.getReadWriteLock("shelf");
    onRedisson(() -> {
      theirs.readLock().lock();
      return null;
    });
    ReadWriteLock mine = slowRecheckClient().readWriteLock("shelf");
    try (Lease sharing = mine.readLock().acquire(Duration.ofSeconds(5))) {
      assertThat(sharing.isValid()).isTrue();
    }
    CompletableFuture<Lease> writer = mine.writeLock().acquireAsync();
    await().until(() -> mine.writeLock().waiters().size() == 1);
    assertThat(writer).isNotDone();
    onRedisson(() -> {
      theirs.readLock().unlock();
      return null;
    });
    try (Lease write = writer.get(5, TimeUnit.SECONDS)) {
      assertThat(onRedisson(() -> theirs.readLock().tryLock())).isFalse();
      assertThat(raw().hget("shelf", "mode")).isEqualTo("write");
    }
  }

  @Test
  void serverRestartedUnderABatonWriter_redissonReaderComesInOnlyBesideNoValidWriter() throws Exception {
    RReadWriteLock theirs = redisson.getReadWriteLock("restarted");
    RedisBaton baton = client();
    Lease write = baton.readWriteLock("restarted").writeLock().acquire();
    assertThat(onRedisson(() -> theirs.readLock().tryLock())).isFalse();

    redis.restart(); // empty: the hash and every Baton key are gone

    await().atMost(Duration.ofSeconds(20)).until(() -> write.state() == dev.baton.lock.LeaseState.LOST);
    assertThat(redissonThread.submit(() -> theirs.readLock().tryLock(20, TimeUnit.SECONDS)).get(30, TimeUnit.SECONDS))
        .isTrue();
    assertThat(write.isValid()).as("the old writer beside Redisson's reader").isFalse();
    ReadWriteLock mine = client().readWriteLock("restarted");
    assertThat(mine.writeLock().tryAcquire(Duration.ZERO)).as("a new writer beside Redisson's reader").isEmpty();
    try (Lease read = mine.readLock().acquire(Duration.ofSeconds(5))) {
      assertThat(read.isValid()).isTrue();
    }
    onRedisson(() -> {
      theirs.readLock().unlock();
      return null;
    });
    try (Lease next = client().readWriteLock("restarted").writeLock().acquire(Duration.ofSeconds(10))) {
      assertThat(onRedisson(() -> theirs.readLock().tryLock())).isFalse();
    }
    write.close();
  }
}
