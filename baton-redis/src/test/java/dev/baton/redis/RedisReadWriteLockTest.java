package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonException;
import dev.baton.lock.AcquireTimeoutException;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.ReadWriteLock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RedisReadWriteLockTest extends RedisTestSupport {

  /**
   * A client whose own re-check comes late (every 10 s of a 30 s waiter lease), so a hand-over seen
   * within a few seconds came through the release channel, not through polling.
   */
  private RedisBaton slowRecheckClient() {
    return client(RedisBaton.builder().uri(redis.uri()).waiterLease(Duration.ofSeconds(30)));
  }

  @Test
  void readers_share_andEachHasItsOwnToken() {
    Lease first = client().readWriteLock("prices").readLock().acquire();
    Lease second = client().readWriteLock("prices").readLock().acquire(Duration.ofSeconds(5));
    assertThat(first.isValid()).isTrue();
    assertThat(second.isValid()).isTrue();
    assertThat(second.fencingToken()).isNotEqualTo(first.fencingToken());
    assertThat(raw().hget("prices", "mode")).isEqualTo("read");
    ReadWriteLock lock = client().readWriteLock("prices");
    assertThat(lock.holders()).extracting(dev.baton.lock.LockOwner::fencingToken)
        .containsExactlyInAnyOrder(first.fencingToken(), second.fencingToken());
    assertThat(lock.holders()).allSatisfy(owner -> {
      assertThat(owner.pid()).isEqualTo(ProcessHandle.current().pid());
      assertThat(owner.thread()).isNotEmpty();
    });
    assertThat(lock.readLock().holder()).isPresent();
    assertThat(lock.writeLock().holder()).isEmpty();
    first.close();
    second.close();
    await().until(() -> raw().exists("prices") == 0);
  }

  @Test
  void writer_excludesReadersAndWriters_andTheyComeInOnceItIsReleased() throws Exception {
    ReadWriteLock mine = client().readWriteLock("stock");
    ReadWriteLock theirs = slowRecheckClient().readWriteLock("stock");
    Lease writing = mine.writeLock().acquire();
    assertThat(raw().hget("stock", "mode")).isEqualTo("write");
    assertThat(theirs.writeLock().holder()).map(dev.baton.lock.LockOwner::fencingToken).contains(writing.fencingToken());
    assertThat(theirs.readLock().tryAcquire(Duration.ZERO)).isEmpty();
    assertThat(theirs.writeLock().tryAcquire(Duration.ZERO)).isEmpty();

    CompletableFuture<Lease> reader = theirs.readLock().acquireAsync();
    await().until(() -> theirs.readLock().waiters().size() == 1);
    assertThat(reader).isNotDone();
    writing.close();
    try (Lease read = reader.get(5, TimeUnit.SECONDS)) { // woken by the release notice
      assertThat(read.fencingToken()).isGreaterThan(writing.fencingToken());
    }
  }

  @Test
  void aWaitingWriter_keepsLaterReadersOut_andTokensFollowTheQueue() throws Exception {
    ReadWriteLock lock = client().readWriteLock("report");
    ReadWriteLock other = slowRecheckClient().readWriteLock("report");
    Lease reading = lock.readLock().acquire();

    CompletableFuture<Lease> writer = other.writeLock().acquireAsync();
    await().until(() -> other.writeLock().waiters().size() == 1);
    assertThat(client().readWriteLock("report").readLock().tryAcquire(Duration.ZERO))
        .as("a reader that comes after a waiting writer").isEmpty();
    CompletableFuture<Lease> laterReader = slowRecheckClient().readWriteLock("report").readLock().acquireAsync();
    await().until(() -> lock.waiters().size() == 2);

    reading.close();
    Lease written = writer.get(5, TimeUnit.SECONDS); // woken by the release notice
    assertThat(written.fencingToken()).isGreaterThan(reading.fencingToken());
    assertThat(laterReader).isNotDone();
    written.close();
    try (Lease read = laterReader.get(5, TimeUnit.SECONDS)) {
      assertThat(read.fencingToken()).isGreaterThan(written.fencingToken());
    }
  }

  @Test
  void downgrade_keepsReading_readersJoin_writersStayOut() {
    ReadWriteLock lock = client().readWriteLock("config");
    ReadWriteLock other = client().readWriteLock("config");
    Lease write = lock.writeLock().acquire();
    Lease read = lock.readLock().acquire(Duration.ofSeconds(5)); // at once: this thread writes
    assertThat(read.fencingToken()).isEqualTo(write.fencingToken());
    assertThat(other.readLock().tryAcquire(Duration.ZERO)).isEmpty();

    write.close();
    await().until(() -> "read".equals(raw().hget("config", "mode"))); // the release is sent, not awaited
    assertThat(read.state()).isEqualTo(LeaseState.HELD);
    try (Lease joined = other.readLock().acquire(Duration.ofSeconds(5))) {
      assertThat(joined.fencingToken()).isGreaterThan(write.fencingToken());
      assertThat(client().readWriteLock("config").writeLock().tryAcquire(Duration.ZERO)).isEmpty();
    }
    read.close();
    try (Lease next = other.writeLock().acquire(Duration.ofSeconds(5))) {
      assertThat(next.fencingToken()).isGreaterThan(write.fencingToken());
    }
  }

  @Test
  void upgrade_isRefusedAtOnce_andReentrancyIsCountedPerThread() {
    ReadWriteLock lock = client().readWriteLock("upgrade");
    Lease read = lock.readLock().acquire();
    Lease again = lock.readLock().acquire();
    assertThat(again.fencingToken()).isEqualTo(read.fencingToken());
    assertThatThrownBy(() -> lock.writeLock().acquire(Duration.ofSeconds(1)))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("upgrade").hasMessageContaining("downgrade");
    again.close();
    assertThat(lock.readLock().isHeldByCurrentThread()).isTrue();
    read.close();
    assertThat(lock.readLock().isHeldByCurrentThread()).isFalse();
  }

  @Test
  void leases_turnLost_whenTheHashIsDeleted() {
    RedisBaton baton = client();
    Lease read = baton.readWriteLock("gone-r").readLock().acquire();
    Lease write = baton.readWriteLock("gone-w").writeLock().acquire();
    raw().del("gone-r", "gone-w");
    await().atMost(Duration.ofSeconds(10)).until(() -> read.state() == LeaseState.LOST && write.state() == LeaseState.LOST);
    read.close();
    write.close();
  }

  @Test
  void aTimedOutWaiter_leavesNothingBehind() {
    Lease write = client().readWriteLock("timed").writeLock().acquire();
    ReadWriteLock other = client().readWriteLock("timed");
    assertThatThrownBy(() -> other.readLock().acquire(Duration.ofMillis(200)))
        .isInstanceOf(AcquireTimeoutException.class).hasMessageContaining("timed");
    assertThatThrownBy(() -> other.writeLock().acquire(Duration.ofMillis(200)))
        .isInstanceOf(AcquireTimeoutException.class);
    await().until(() -> other.waiters().isEmpty());
    write.close();
    await().until(() -> raw().keys("*").stream().allMatch(k -> k.startsWith("baton_rwlock_token:")));
  }

  @Test
  void aCrashedReadersField_isSweptByTheNextWriter_onceItsTimeoutKeysExpired() {
    raw().hset("swept", "mode", "read");
    raw().hset("swept", "00000000-dead:1", "1"); // no timeout key: its holder stopped renewing long ago
    try (Lease write = client().readWriteLock("swept").writeLock().acquire(Duration.ofSeconds(5))) {
      assertThat(write.isValid()).isTrue();
      assertThat(raw().hexists("swept", "00000000-dead:1")).isFalse();
    }
  }

  @Test
  void aKeyOfAnotherKind_underTheName_isRefusedNamingIt_andKept() {
    raw().set("plain-value", "x");
    assertThatThrownBy(() -> client().readWriteLock("plain-value").readLock().acquire(Duration.ofSeconds(1)))
        .isInstanceOf(BatonException.class).hasMessageContaining("the key plain-value holds a string");
    assertThat(raw().get("plain-value")).isEqualTo("x");
    raw().hset("a-mutex", "owner", "1");
    assertThatThrownBy(() -> client().readWriteLock("a-mutex").writeLock().acquire(Duration.ofSeconds(1)))
        .isInstanceOf(BatonException.class).hasMessageContaining("the key a-mutex holds a hash without a mode field");
    assertThat(raw().hget("a-mutex", "owner")).isEqualTo("1");
    raw().set("baton_rwlock_token:{counted}", "abc");
    assertThatThrownBy(() -> client().readWriteLock("counted").writeLock().acquire(Duration.ofSeconds(1)))
        .hasMessageContaining("fencing counter baton_rwlock_token:{counted} holds \"abc\"");
    assertThat(raw().get("baton_rwlock_token:{counted}")).isEqualTo("abc");
    assertThat(raw().exists("counted")).isZero();
  }

  @Test
  void forceUnlock_freesAReadWriteLock_andItsHolderTurnsLost() throws Exception {
    RedisBaton baton = client();
    Lease write = baton.readWriteLock("forced").writeLock().acquire();
    ReadWriteLock other = client().readWriteLock("forced");
    CompletableFuture<Lease> waiting = other.writeLock().acquireAsync();
    await().until(() -> other.waiters().size() == 1);
    assertThat(client().forceUnlock("forced")).isTrue();
    try (Lease next = waiting.get(10, TimeUnit.SECONDS)) {
      assertThat(next.fencingToken()).isGreaterThan(write.fencingToken());
      await().atMost(Duration.ofSeconds(10)).until(() -> write.state() == LeaseState.LOST);
    }
    write.close();
  }
}
