package dev.baton.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The cases Spring Integration's own lock registries are tested with (obtain, lock, reentrancy,
 * two threads, two registries, tryLock with a timeout, unlock from the wrong thread, interruption,
 * expiry of unused locks, renewal), run against a {@link BatonLockRegistry} on each backend. Each
 * registry a test asks for stands on a client of its own, as two processes would.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
abstract class LockRegistryContract {
  private final ExecutorService pool = Executors.newCachedThreadPool();

  /** A registry on a new client of the backend, closed after the test. */
  abstract BatonLockRegistry newRegistry();

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
  }

  private <T> T onOtherThread(java.util.concurrent.Callable<T> task) throws Exception {
    return pool.submit(task).get(30, TimeUnit.SECONDS);
  }

  private boolean elsewhere(java.util.concurrent.Callable<Boolean> task) throws Exception {
    return onOtherThread(task);
  }

  @Test
  void obtain_sameKeyTwice_sameLockAndDifferentKeysDifferentLocks() {
    BatonLockRegistry registry = newRegistry();

    assertThat(registry.obtain("a")).isSameAs(registry.obtain("a")).isNotSameAs(registry.obtain("b"));
  }

  @Test
  void lock_heldByOneRegistry_otherRegistryCannotUntilUnlocked() throws Exception {
    Lock mine = newRegistry().obtain("shared");
    Lock theirs = newRegistry().obtain("shared");

    mine.lock();
    try {
      assertThat(elsewhere(theirs::tryLock)).isFalse();
    } finally {
      mine.unlock();
    }
    assertThat(elsewhere(() -> {
      boolean got = theirs.tryLock(10, TimeUnit.SECONDS);
      theirs.unlock();
      return got;
    })).isTrue();
  }

  @Test
  void lock_differentKeys_heldAtOnce() throws Exception {
    BatonLockRegistry registry = newRegistry();
    Lock a = registry.obtain("key-a");
    a.lock();
    try {
      assertThat(elsewhere(() -> {
        Lock b = registry.obtain("key-b");
        boolean got = b.tryLock(10, TimeUnit.SECONDS);
        b.unlock();
        return got;
      })).isTrue();
    } finally {
      a.unlock();
    }
  }

  @Test
  void lock_reentrantOnOneThread_otherRegistryWaitsForTheLastUnlock() throws Exception {
    BatonLockRegistry registry = newRegistry();
    Lock other = newRegistry().obtain("reentrant");
    registry.obtain("reentrant").lock();
    registry.obtain("reentrant").lock();

    registry.obtain("reentrant").unlock();
    assertThat(elsewhere(other::tryLock)).as("one hold left").isFalse();
    registry.obtain("reentrant").unlock();
    assertThat(elsewhere(() -> {
      boolean got = other.tryLock(10, TimeUnit.SECONDS);
      other.unlock();
      return got;
    })).isTrue();
  }

  @Test
  void lock_twoThreadsOfOneRegistry_secondWaitsForTheFirstToUnlock() throws Exception {
    BatonLockRegistry registry = newRegistry();
    Lock lock = registry.obtain("two-threads");
    lock.lock();
    CountDownLatch asking = new CountDownLatch(1);
    Future<Boolean> second = pool.submit(() -> {
      asking.countDown();
      lock.lock();
      lock.unlock();
      return true;
    });
    assertThat(asking.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(elsewhere(lock::tryLock)).as("a third thread, while the first holds").isFalse();
    assertThat(second).isNotDone();

    lock.unlock();

    assertThat(second.get(30, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void lock_manyThreadsOfTwoRegistries_neverTwoInsideAtOnce() throws Exception {
    List<BatonLockRegistry> registries = List.of(newRegistry(), newRegistry());
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger mostInside = new AtomicInteger();
    List<Future<?>> workers = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      Lock lock = registries.get(i % 2).obtain("exclusive");
      workers.add(pool.submit(() -> {
        for (int round = 0; round < 5; round++) {
          lock.lock();
          try {
            mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
            inside.decrementAndGet();
          } finally {
            lock.unlock();
          }
        }
        return null;
      }));
    }
    for (Future<?> worker : workers) {
      worker.get(60, TimeUnit.SECONDS);
    }

    assertThat(mostInside.get()).isEqualTo(1);
  }

  @Test
  void tryLock_heldElsewhere_falseOnceTheTimeoutPasses() throws Exception {
    Lock mine = newRegistry().obtain("timeout");
    Lock theirs = newRegistry().obtain("timeout");
    mine.lock();
    try {
      long start = System.nanoTime();
      assertThat(elsewhere(() -> theirs.tryLock(300, TimeUnit.MILLISECONDS))).isFalse();
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
    } finally {
      mine.unlock();
    }
  }

  @Test
  void unlock_byAThreadThatDoesNotHoldIt_illegalMonitorStateAndStillHeld() throws Exception {
    BatonLockRegistry registry = newRegistry();
    Lock lock = registry.obtain("wrong-thread");
    Lock other = newRegistry().obtain("wrong-thread");
    lock.lock();
    try {
      assertThatThrownBy(() -> onOtherThread(() -> {
        lock.unlock();
        return null;
      })).hasCauseInstanceOf(IllegalMonitorStateException.class);
      assertThat(elsewhere(other::tryLock)).isFalse();
    } finally {
      lock.unlock();
    }
  }

  @Test
  void lockInterruptibly_interruptedWhileWaiting_interruptedExceptionAndNotHeld() throws Exception {
    Lock mine = newRegistry().obtain("interrupt");
    Lock theirs = newRegistry().obtain("interrupt");
    mine.lock();
    CompletableFuture<Throwable> outcome = new CompletableFuture<>();
    CountDownLatch asking = new CountDownLatch(1);
    Future<?> waiter = pool.submit(() -> {
      try {
        asking.countDown();
        theirs.lockInterruptibly();
        outcome.complete(null);
      } catch (Throwable e) {
        outcome.complete(e);
      }
    });
    assertThat(asking.await(10, TimeUnit.SECONDS)).isTrue();

    waiter.cancel(true);

    assertThat(outcome.get(30, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
    mine.unlock();
    assertThat(elsewhere(() -> {
      boolean got = mine.tryLock(10, TimeUnit.SECONDS);
      mine.unlock();
      return got;
    })).as("the interrupted waiter left nothing in the way").isTrue();
  }

  @Test
  void executeLocked_withTimeout_runsUnderTheLock() throws Exception {
    BatonLockRegistry registry = newRegistry();
    Lock other = newRegistry().obtain("execute");
    List<Boolean> otherCouldLock = new ArrayList<>();

    registry.executeLocked("execute", Duration.ofSeconds(10), () -> otherCouldLock.add(elsewhere(other::tryLock)));

    assertThat(otherCouldLock).containsExactly(false);
  }

  @Test
  void expireUnusedOlderThan_unheldLocksForgottenHeldOnesKept() {
    BatonLockRegistry registry = newRegistry();
    Lock held = registry.obtain("held");
    Lock idle = registry.obtain("idle");
    held.lock();
    try {
      registry.expireUnusedOlderThan(Duration.ofHours(1).toMillis());
      assertThat(registry.size()).as("nothing is an hour old").isEqualTo(2);

      registry.expireUnusedOlderThan(0);

      assertThat(registry.size()).isEqualTo(1);
      assertThat(registry.obtain("held")).isSameAs(held);
      assertThat(registry.obtain("idle")).isNotSameAs(idle);
    } finally {
      held.unlock();
    }
  }

  @Test
  void renewLock_heldByThisThread_passesAndNotHeld_illegalState() {
    BatonLockRegistry registry = newRegistry();
    assertThatThrownBy(() -> registry.renewLock("renew")).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("does not hold");
    Lock lock = registry.obtain("renew");
    lock.lock();
    try {
      registry.renewLock("renew");
    } finally {
      lock.unlock();
    }
  }
}
