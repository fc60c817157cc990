package dev.baton.lock;

import dev.baton.BatonInterruptedException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * A {@link Lock} over a {@link Mutex}, for code written against {@code java.util.concurrent}
 * (and for Spring Integration's {@code LockRegistry}). It works on any backend's mutex. Like a
 * {@code ReentrantLock} it is reentrant per thread and must be unlocked by the thread that locked
 * it; unlike one, it cannot honour every promise of {@code Lock}, and says so here:
 *
 * <ul>
 *   <li><b>Conditions</b>: {@link #newCondition()} throws {@code UnsupportedOperationException};
 *       there is no distributed wait/notify. Use a barrier or a queue instead.
 *   <li><b>{@link #lock()} can fail</b>: it waits as long as it takes and ignores interrupts (the
 *       flag is set again once it returns), but it throws the mutex's unchecked exceptions when
 *       the client is closed ({@code ClientClosedException}) or cannot reach the servers, where a
 *       local lock never fails.
 *   <li><b>Interruption</b>: {@link #lockInterruptibly()} and {@link #tryLock(long, TimeUnit)}
 *       throw {@code InterruptedException} and withdraw the waiter from the queue (its node is
 *       deleted), as the {@code Lock} contract asks.
 *   <li><b>Timeouts</b>: {@link #tryLock()} tries once without queueing; {@link #tryLock(long,
 *       TimeUnit)} queues and returns {@code false} when the time passes, leaving nothing behind.
 *   <li><b>Loss of the lease</b>: a local lock is held until unlocked; this one is held only while
 *       its {@link Lease} is valid. When the connection is suspended or the session expires, the
 *       thread still counts as holding it (nothing in {@code Lock} can tell it otherwise), so
 *       check {@link #currentLease()} ({@link Lease#isValid()}, listeners) before acting on what
 *       the lock protects, and pass {@link Lease#fencingToken()} along. {@link #unlock()} of a
 *       lock whose lease was lost releases the local hold and throws {@link LockLostException}.
 *   <li><b>Connection loss while waiting</b>: as in {@link Mutex}: the waiter keeps its place, or
 *       queues again on a new session, within its timeout.
 * </ul>
 *
 * <p>One {@code MutexLock} may be shared by any number of threads, as its mutex may.
 */
public final class MutexLock implements Lock {
  private final Mutex mutex;
  // One stack of leases per holding thread: reentrant locks push, unlocks pop. Only the owning
  // thread touches its own stack, so the stacks need no lock of their own.
  private final Map<Thread, Deque<Lease>> held = new ConcurrentHashMap<>();

  private MutexLock(Mutex mutex) {
    this.mutex = mutex;
  }

  /** A {@code Lock} backed by {@code mutex}; locks of the same mutex object share their holds. */
  public static MutexLock of(Mutex mutex) {
    return new MutexLock(Objects.requireNonNull(mutex, "mutex"));
  }

  /** The mutex under this lock. */
  public Mutex mutex() {
    return mutex;
  }

  /**
   * Waits as long as it takes, ignoring interrupts until it holds the lock (then the interrupt
   * flag is set again).
   *
   * @throws dev.baton.ClientClosedException if the client is closed, before or while waiting
   */
  @Override
  public void lock() {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          push(mutex.acquire());
          return;
        } catch (BatonInterruptedException e) {
          // The mutex withdrew the waiter and set the flag again; clear it and queue anew.
          interrupted |= Thread.interrupted();
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Waits as long as it takes.
   *
   * @throws InterruptedException if interrupted before or while waiting; the waiter is withdrawn
   */
  @Override
  public void lockInterruptibly() throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException("interrupted before locking " + mutex.path());
    }
    try {
      push(mutex.acquire());
    } catch (BatonInterruptedException e) {
      throw interrupted(e);
    }
  }

  /** Takes the lock only if it is free now (one try, no queueing). */
  @Override
  public boolean tryLock() {
    return mutex.tryAcquire(Duration.ZERO).map(this::push).isPresent();
  }

  /**
   * Waits at most {@code time}; {@code false} when it passes, with the waiter withdrawn.
   *
   * @throws InterruptedException if interrupted before or while waiting
   */
  @Override
  public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException("interrupted before locking " + mutex.path());
    }
    Duration timeout = Duration.ofNanos(Math.max(0, unit.toNanos(time)));
    try {
      return mutex.tryAcquire(timeout).map(this::push).isPresent();
    } catch (BatonInterruptedException e) {
      throw interrupted(e);
    }
  }

  /**
   * Gives back one level of the calling thread's hold.
   *
   * @throws IllegalMonitorStateException if the calling thread does not hold this lock (as {@code
   *     ReentrantLock} does; another thread cannot unlock it)
   * @throws LockLostException if the lease had been lost; the hold is released all the same
   */
  @Override
  public void unlock() {
    Deque<Lease> leases = held.get(Thread.currentThread());
    if (leases == null || leases.isEmpty()) {
      throw new IllegalMonitorStateException("the current thread (" + Thread.currentThread().getName()
          + ") does not hold the lock " + mutex.path());
    }
    Lease lease = leases.pop();
    if (leases.isEmpty()) {
      held.remove(Thread.currentThread());
    }
    LeaseState state = lease.state();
    lease.close();
    if (state == LeaseState.LOST) {
      throw new LockLostException(mutex.path());
    }
  }

  /** Always throws: a distributed lock has no condition variables. */
  @Override
  public Condition newCondition() {
    throw new UnsupportedOperationException("a distributed lock (" + mutex.path()
        + ") has no conditions; wait on a barrier or a queue instead");
  }

  /** Whether the calling thread holds this lock (its lease may since have been lost). */
  public boolean isHeldByCurrentThread() {
    Deque<Lease> leases = held.get(Thread.currentThread());
    return leases != null && !leases.isEmpty();
  }

  /** Whether any thread of this process holds this lock through this object. */
  public boolean isHeldInThisProcess() {
    return !held.isEmpty();
  }

  /**
   * The lease behind the calling thread's innermost hold: its {@linkplain Lease#state() state},
   * {@linkplain Lease#fencingToken() fencing token} and listeners. Empty if it holds none.
   */
  public Optional<Lease> currentLease() {
    Deque<Lease> leases = held.get(Thread.currentThread());
    return leases == null ? Optional.empty() : Optional.ofNullable(leases.peek());
  }

  @Override
  public String toString() {
    return "MutexLock[" + mutex.path() + "]";
  }

  private Lease push(Lease lease) {
    held.computeIfAbsent(Thread.currentThread(), t -> new ArrayDeque<>()).push(lease);
    return lease;
  }

  private InterruptedException interrupted(BatonInterruptedException e) {
    Thread.interrupted(); // the mutex set the flag again; an InterruptedException clears it
    InterruptedException interrupted = new InterruptedException("interrupted while waiting for " + mutex.path());
    interrupted.initCause(e);
    return interrupted;
  }
}
