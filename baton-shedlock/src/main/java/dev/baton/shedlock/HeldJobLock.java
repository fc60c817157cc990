package dev.baton.shedlock;

import dev.baton.lock.Lease;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * One job's hold, from the claim (before the backend is asked) to the release. Its deadlines run on
 * the provider's timer: lockAtMostFor releases, lockAtLeastFor delays an early unlock. Every change
 * happens under this object's monitor, which no caller can reach (ShedLock sees {@link SimpleLock}
 * handles only).
 */
final class HeldJobLock {
  private final String name;
  private final ScheduledExecutorService timer;
  private final BiConsumer<String, HeldJobLock> forget;
  private final Object guard = new Object();
  private Lease lease;
  private long atLeastUntilNanos;
  private ScheduledFuture<?> atMost;
  private ScheduledFuture<?> delayedRelease;
  private boolean released;
  // The handle ShedLock holds; extend() hands out a new one and retires the old.
  private SimpleLock current;

  private HeldJobLock(String name, ScheduledExecutorService timer, BiConsumer<String, HeldJobLock> forget) {
    this.name = name;
    this.timer = timer;
    this.forget = forget;
  }

  static HeldJobLock claim(String name, ScheduledExecutorService timer, BiConsumer<String, HeldJobLock> forget) {
    return new HeldJobLock(name, timer, forget);
  }

  /** Holds {@code lease} under the deadlines; the handle for ShedLock. */
  SimpleLock start(Lease lease, Duration lockAtMostFor, Duration lockAtLeastFor) {
    synchronized (guard) {
      this.lease = lease;
      this.current = new Handle();
      setDeadlines(lockAtMostFor, lockAtLeastFor);
      return current;
    }
  }

  Optional<Lease> lease() {
    synchronized (guard) {
      return released ? Optional.empty() : Optional.ofNullable(lease);
    }
  }

  void releaseNow() {
    Lease toClose;
    synchronized (guard) {
      if (released || lease == null) {
        return;
      }
      released = true;
      cancel(atMost);
      cancel(delayedRelease);
      toClose = lease;
    }
    forget.accept(name, this);
    toClose.close();
  }

  private void setDeadlines(Duration lockAtMostFor, Duration lockAtLeastFor) {
    cancel(atMost);
    atMost = timer.schedule(this::releaseNow, lockAtMostFor.toNanos(), TimeUnit.NANOSECONDS);
    atLeastUntilNanos = System.nanoTime() + lockAtLeastFor.toNanos();
  }

  private static void cancel(ScheduledFuture<?> future) {
    if (future != null) {
      future.cancel(false);
    }
  }

  /** What ShedLock holds: valid until unlocked or extended. */
  private final class Handle implements SimpleLock {
    private boolean retired;

    @Override
    public void unlock() {
      synchronized (guard) {
        retire("unlocked");
        long wait = atLeastUntilNanos - System.nanoTime();
        if (wait > 0 && !released) {
          delayedRelease = timer.schedule(HeldJobLock.this::releaseNow, wait, TimeUnit.NANOSECONDS);
          return;
        }
      }
      releaseNow();
    }

    @Override
    public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
      synchronized (guard) {
        retire("extended");
        if (released || !lease.isValid()) {
          return Optional.empty();
        }
        setDeadlines(lockAtMostFor, lockAtLeastFor);
        current = new Handle();
        return Optional.of(current);
      }
    }

    private void retire(String what) {
      if (retired) {
        throw new IllegalStateException("the ShedLock lock '" + name + "' was already unlocked or extended;"
            + " use the lock extend() returned");
      }
      retired = true;
    }
  }
}
