package dev.baton.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The cases ShedLock's own provider tests check (its test-support artifact is not on Maven Central,
 * so they are written out here): lock, no second lock, independent names, lock again after unlock,
 * lockAtMostFor ending a hold, lockAtLeastFor outlasting an unlock, many threads and nodes at once,
 * and extension. "Locked" is judged as another node would: a provider on another client tries.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
abstract class LockProviderContract {
  static final Duration FIVE_MINUTES = Duration.ofMinutes(5);

  /** A provider on a new client of the backend (another node) whose deadlines run on {@code timer}, closed after the test. */
  abstract BatonLockProvider newProvider(ScheduledExecutorService timer);

  /** A provider on a new client of the backend (another node), closed after the test. */
  BatonLockProvider newProvider() {
    return newProvider(Executors.newSingleThreadScheduledExecutor());
  }

  static LockConfiguration config(String name, Duration atMost, Duration atLeast) {
    return new LockConfiguration(Instant.now(), name, atMost, atLeast);
  }

  static LockConfiguration config(String name) {
    return config(name, FIVE_MINUTES, Duration.ZERO);
  }

  private void assertLocked(String name) {
    assertThat(newProvider().lock(config(name))).as(name + " seen from another node").isEmpty();
  }

  private boolean freeFor(LockProvider other, String name) {
    Optional<SimpleLock> lock = other.lock(config(name));
    lock.ifPresent(SimpleLock::unlock);
    return lock.isPresent();
  }

  @Test
  void lock_free_heldUntilUnlocked() {
    BatonLockProvider provider = newProvider();
    Optional<SimpleLock> lock = provider.lock(config("create"));

    assertThat(lock).isPresent();
    assertLocked("create");
    lock.get().unlock();
    assertThat(freeFor(newProvider(), "create")).isTrue();
  }

  @Test
  void lock_alreadyHeldByThisProvider_emptyNotReentrant() {
    BatonLockProvider provider = newProvider();
    Optional<SimpleLock> lock = provider.lock(config("second"));

    assertThat(provider.lock(config("second"))).isEmpty();
    lock.orElseThrow().unlock();
  }

  @Test
  void lock_twoNames_heldIndependently() {
    BatonLockProvider provider = newProvider();
    Optional<SimpleLock> one = provider.lock(config("one"));
    Optional<SimpleLock> two = provider.lock(config("two"));

    assertThat(one).isPresent();
    assertThat(two).isPresent();
    one.get().unlock();
    two.get().unlock();
  }

  @Test
  void lock_rightAfterUnlock_tenTimesInARow() {
    BatonLockProvider provider = newProvider();
    for (int i = 0; i < 10; i++) {
      Optional<SimpleLock> lock = provider.lock(config("again"));
      assertThat(lock).as("round " + i).isPresent();
      assertThat(provider.lock(config("again"))).isEmpty();
      lock.get().unlock();
    }
  }

  @Test
  void lock_lockAtMostForPasses_releasedWithoutUnlock() {
    BatonLockProvider provider = newProvider();
    BatonLockProvider other = newProvider();
    assertThat(provider.lock(config("at-most", Duration.ofMillis(200), Duration.ZERO))).isPresent();

    await().atMost(Duration.ofSeconds(20)).until(() -> freeFor(other, "at-most"));
    assertThat(provider.currentLease("at-most")).as("forgotten by its provider").isEmpty();
  }

  @Test
  void unlock_beforeLockAtLeastFor_heldUntilItPasses() {
    BatonLockProvider provider = newProvider();
    BatonLockProvider other = newProvider();
    SimpleLock lock = provider.lock(config("at-least", FIVE_MINUTES, Duration.ofSeconds(3))).orElseThrow();

    lock.unlock();

    assertThat(other.lock(config("at-least"))).as("within lockAtLeastFor").isEmpty();
    await().atMost(Duration.ofSeconds(20)).until(() -> freeFor(other, "at-least"));
  }

  @Test
  void lock_manyThreadsOnTwoNodes_neverTwoRunsAtOnce() throws Exception {
    List<BatonLockProvider> nodes = List.of(newProvider(), newProvider());
    AtomicInteger running = new AtomicInteger();
    AtomicInteger mostRunning = new AtomicInteger();
    AtomicInteger runs = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(6);
    try {
      List<Future<?>> workers = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        BatonLockProvider node = nodes.get(i % 2);
        workers.add(pool.submit(() -> {
          for (int attempt = 0; attempt < 30; attempt++) {
            Optional<SimpleLock> lock = node.lock(config("fuzz"));
            if (lock.isPresent()) {
              mostRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
              runs.incrementAndGet();
              running.decrementAndGet();
              lock.get().unlock();
            }
          }
          return null;
        }));
      }
      for (Future<?> worker : workers) {
        worker.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }

    assertThat(mostRunning.get()).isEqualTo(1);
    assertThat(runs.get()).as("some attempts ran").isPositive();
  }

  @Test
  void extend_held_newLockHoldsAndTheOldOneIsRetired() {
    Duration firstAtMost = Duration.ofMillis(300);
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    BatonLockProvider provider = newProvider(timer);
    SimpleLock first = provider.lock(config("extend", firstAtMost, Duration.ZERO)).orElseThrow();
    // Due no sooner than the first lockAtMostFor, on the same single thread: once it has run, the
    // old deadline would have run too, had extend() not cancelled it.
    ScheduledFuture<?> pastFirstDeadline = timer.schedule(() -> {}, firstAtMost.toNanos(), TimeUnit.NANOSECONDS);

    SimpleLock extended = first.extend(FIVE_MINUTES, Duration.ZERO).orElseThrow();

    assertThatThrownBy(first::unlock).isInstanceOf(IllegalStateException.class).hasMessageContaining("extend");
    await().atMost(Duration.ofSeconds(10)).until(pastFirstDeadline::isDone);
    assertLocked("extend");
    assertThat(provider.currentLease("extend")).as("still held by its provider").isPresent();
    extended.unlock();
    assertThat(freeFor(newProvider(), "extend")).isTrue();
  }

  @Test
  void close_withLocksHeld_releasesThemAll() {
    BatonLockProvider provider = newProvider();
    provider.lock(config("closing-a", FIVE_MINUTES, FIVE_MINUTES)).orElseThrow();
    provider.lock(config("closing-b")).orElseThrow();

    provider.close();

    BatonLockProvider other = newProvider();
    await().atMost(Duration.ofSeconds(20)).until(() -> freeFor(other, "closing-a") && freeFor(other, "closing-b"));
  }
}
