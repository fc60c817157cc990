package dev.baton.spring.integration;

import dev.baton.lock.Lease;
import dev.baton.lock.LockLostException;
import dev.baton.lock.MutexLock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * A lock of a {@link BatonLockRegistry} on Spring Integration 7: a {@link MutexLock} (reentrant per
 * thread, unlocked by the thread that locked it, no conditions; see there) with a time-to-live per
 * hold.
 *
 * <p><b>Time-to-live</b>: a Baton lease needs none to be safe (a ZooKeeper lease ends with its
 * session, a Redis lease with its TTL, which the client renews while the process lives), so {@link
 * #lock()} and {@link #tryLock(long, TimeUnit)} hold until unlocked. {@link #lock(Duration)} and
 * {@link #tryLock(Duration, Duration)} also bound the hold, as {@code RedisLockRegistry}'s locks
 * do: when the time-to-live runs out before the holding thread unlocks, the registry releases every
 * level of that thread's hold, so another process can take the lock even though this thread is
 * stuck. The holder's later {@link #unlock()} then throws {@link LockExpiredException}. {@code
 * renewLock(key, ttl)} restarts the time-to-live from now.
 */
public final class BatonDistributedLock implements DistributedLock {
  private final MutexLock lock;
  private final Map<Thread, Hold> holds = new ConcurrentHashMap<>();

  /** One thread's hold: its leases (innermost first) and the time limit in force, if any. */
  private static final class Hold {
    final Deque<Lease> leases = new ArrayDeque<>();
    ScheduledFuture<?> expiry;
    Duration ttl;
    boolean expired;
  }

  BatonDistributedLock(MutexLock lock) {
    this.lock = lock;
  }

  /** Waits as long as it takes, ignoring interrupts, as {@link MutexLock#lock()}; holds until unlocked. */
  @Override
  public void lock() {
    lock.lock();
    held(null);
  }

  /**
   * As {@link #lock()}, and released by the registry if still held {@code ttl} from now.
   *
   * @throws IllegalArgumentException if {@code ttl} is not positive
   */
  @Override
  public void lock(Duration ttl) {
    requirePositive(ttl);
    lock.lock();
    held(ttl);
  }

  /** As {@link MutexLock#lockInterruptibly()}; holds until unlocked. */
  @Override
  public void lockInterruptibly() throws InterruptedException {
    lock.lockInterruptibly();
    held(null);
  }

  /** Takes the lock only if it is free now (one try, no queueing); holds until unlocked. */
  @Override
  public boolean tryLock() {
    return lock.tryLock() && held(null);
  }

  /** Waits at most {@code time}, as {@link MutexLock#tryLock(long, TimeUnit)}; holds until unlocked. */
  @Override
  public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
    return lock.tryLock(time, unit) && held(null);
  }

  /**
   * Waits at most {@code waitTime}; once held, released by the registry if still held {@code ttl}
   * later.
   *
   * @throws IllegalArgumentException if {@code ttl} is not positive
   */
  @Override
  public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
    requirePositive(ttl);
    return lock.tryLock(waitTime.toNanos(), TimeUnit.NANOSECONDS) && held(ttl);
  }

  /**
   * Gives back one level of the calling thread's hold.
   *
   * @throws IllegalMonitorStateException if the calling thread does not hold this lock
   * @throws LockLostException if the lease had been lost; the hold is released all the same
   * @throws LockExpiredException if the hold's time-to-live ran out first (the registry released it)
   */
  @Override
  public void unlock() {
    Hold hold = holds.get(Thread.currentThread());
    boolean expired = false;
    if (hold != null) {
      synchronized (hold) {
        expired = hold.expired;
        hold.leases.poll();
        if (hold.leases.isEmpty()) {
          cancel(hold);
          holds.remove(Thread.currentThread());
        }
      }
    }
    lock.unlock();
    if (expired) {
      throw new LockExpiredException(lock.mutex().path(), hold.ttl);
    }
  }

  /** Always throws: a distributed lock has no condition variables. */
  @Override
  public Condition newCondition() {
    return lock.newCondition();
  }

  /**
   * The lease behind the calling thread's innermost hold (fencing token, state, listeners); empty if
   * it holds none.
   */
  public Optional<Lease> currentLease() {
    return lock.currentLease();
  }

  /** The {@code java.util.concurrent} lock this one adds the time-to-live to. */
  public MutexLock mutexLock() {
    return lock;
  }

  @Override
  public String toString() {
    return "BatonDistributedLock[" + lock.mutex().path() + "]";
  }

  /**
   * Restarts the calling thread's time-to-live from now: {@code ttl}, or the last one given if
   * null (then a hold without one keeps having none).
   */
  void renew(Duration ttl) {
    Hold hold = holds.get(Thread.currentThread());
    if (hold == null) {
      return;
    }
    synchronized (hold) {
      Duration next = ttl != null ? ttl : hold.ttl;
      if (next != null && !hold.expired) {
        expireIn(hold, next);
      }
    }
  }

  private boolean held(Duration ttl) {
    Hold hold = holds.computeIfAbsent(Thread.currentThread(), t -> new Hold());
    synchronized (hold) {
      hold.leases.push(lock.currentLease().orElseThrow());
      if (ttl != null) {
        expireIn(hold, ttl);
      }
    }
    return true;
  }

  private static void expireIn(Hold hold, Duration ttl) {
    cancel(hold);
    hold.ttl = ttl;
    hold.expiry = Expiries.SCHEDULER.schedule(() -> expire(hold), ttl.toNanos(), TimeUnit.NANOSECONDS);
  }

  private static void expire(Hold hold) {
    synchronized (hold) {
      if (hold.leases.isEmpty() || hold.expired) {
        return;
      }
      hold.expired = true;
      // Lease.close never blocks: the lock nodes or keys are deleted in the background.
      hold.leases.forEach(Lease::close);
    }
  }

  private static void cancel(Hold hold) {
    if (hold.expiry != null) {
      hold.expiry.cancel(false);
      hold.expiry = null;
    }
  }

  private static void requirePositive(Duration ttl) {
    if (Objects.requireNonNull(ttl, "ttl").isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("a lock's time-to-live must be positive; was " + ttl);
    }
  }

  /** One daemon thread per JVM ends the holds whose time-to-live ran out; made on first use. */
  private static final class Expiries {
    static final ScheduledThreadPoolExecutor SCHEDULER = new ScheduledThreadPoolExecutor(1, task -> {
      Thread thread = new Thread(task, "baton-lock-ttl");
      thread.setDaemon(true);
      return thread;
    });

    static {
      SCHEDULER.setRemoveOnCancelPolicy(true);
    }
  }
}
