package dev.baton.internal.jdbc;

import dev.baton.lock.Lease;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * When a queue of this client's waiters on one name checks the table: at most one check in flight
 * (a wake-up meanwhile makes it check again right after), none while this client yields the name
 * to other clients after releasing it, and a timer for the next check otherwise (the holder's
 * expiry, or a back-off where releases are not heard). {@link LockQueue} (the mutex) and {@link
 * ShareQueue} (the semaphore, the read-write lock) differ only in what a check does.
 */
abstract class CheckQueue {
  static final long MIN_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
  static final long GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

  protected final JdbcSession session;
  private boolean checking; // guarded by this
  private boolean again; // guarded by this: woken while a check was in flight
  private ScheduledFuture<?> timer; // guarded by this
  private long backoffNanos = MIN_BACKOFF_NANOS; // guarded by this

  CheckQueue(JdbcSession session) {
    this.session = session;
  }

  /** Whether a check is in flight. */
  final synchronized boolean isChecking() {
    return checking;
  }

  /** Whether a check has anything to do (guarded by this). */
  abstract boolean hasWork();

  /** Whether a waiter is queued (guarded by this): only then is a next check scheduled. */
  abstract boolean hasWaiters();

  /** When the head waiter queued (guarded by this; called only with a waiter queued). */
  abstract long headQueuedNanos();

  /** The name (or key) this client's releases yield under: see {@link JdbcSession#yieldAfterRelease}. */
  abstract String yieldKey();

  /** One check, on a statement thread; it ends with {@link #finishCheck}. */
  abstract void check();

  /** Nothing is left to check: called outside this queue's lock. */
  void idle() {}

  /**
   * A lease of this client on the name ended: the next waiter tries at once, on this thread (a
   * statement thread, which has just sent the release): the grant follows the release's answer
   * without a hand-off to another thread.
   */
  void released() {
    synchronized (this) {
      backoffNanos = MIN_BACKOFF_NANOS;
    }
    startCheck(true);
  }

  /**
   * A lease of this client on the name ended, and its release marked the row for this client's
   * waiters, which yield to another client: the next check comes when a release is heard, or after
   * {@code yieldNanos} (on the back-off where releases are not heard), not at once.
   */
  void releasedYielding(long yieldNanos) {
    synchronized (this) {
      backoffNanos = MIN_BACKOFF_NANOS;
    }
    long retry = retryAfterRefusal(yieldNanos);
    synchronized (this) {
      if (!checking && hasWaiters()) {
        schedule(retry);
        return;
      }
    }
    startCheck(true); // no waiter (left meanwhile) or a check in flight: as after any release
  }

  /** Something may have changed (a notify, a release, a timer): check once, now or after the check in flight. */
  void wake() {
    startCheck(false);
  }

  private void startCheck(boolean onThisThread) {
    boolean work;
    synchronized (this) {
      work = hasWork();
    }
    if (!work) {
      idle(); // outside this queue's lock: the session's map locks first, then the queue
      return;
    }
    synchronized (this) {
      if (!hasWork()) {
        return;
      }
      if (checking) {
        again = true;
        return;
      }
      if (session.releaseInFlight(yieldKey())) {
        return; // this client holds the name: its release's answer checks, on its own thread (released())
      }
      long yieldNanos = hasWaiters() ? session.yieldingNanos(yieldKey(), headQueuedNanos()) : 0;
      if (yieldNanos > 0) { // this client just released the name: another client's waiter goes first
        schedule(yieldNanos);
        return;
      }
      checking = true;
      cancelTimer();
    }
    if (onThisThread) {
      check();
      return;
    }
    try {
      session.io(this::check);
    } catch (RejectedExecutionException e) {
      synchronized (this) {
        checking = false;
      }
    }
  }

  /** Ends the check; checks again at once if woken meanwhile, else after {@code retryNanos} (never if negative). */
  final void finishCheck(long retryNanos) {
    boolean now;
    synchronized (this) {
      checking = false;
      now = again && hasWork();
      again = false;
      if (!now && retryNanos >= 0 && hasWaiters()) {
        schedule(retryNanos);
      }
    }
    if (now) {
      wake();
    } else {
      idle();
    }
  }

  /** A grant leaves room for the next waiter (permits, a shared read): it tries once this check ends. */
  final synchronized void checkAgain() {
    again = true;
  }

  /** The head waiter was granted. */
  final synchronized void resetBackoff() {
    backoffNanos = MIN_BACKOFF_NANOS;
  }

  /**
   * When to try again after a refused attempt: when the blocking row would expire ({@code
   * untilExpiryNanos}) if releases are heard (an expiry is not), else on a back-off bounded by it.
   */
  final long retryAfterRefusal(long untilExpiryNanos) {
    if (session.listening() && !session.dialect().foreignWriters()) {
      return untilExpiryNanos;
    }
    synchronized (this) {
      long retry = Math.min(backoffNanos, untilExpiryNanos);
      backoffNanos = Math.min(backoffNanos * 2, session.settings().maxBackoff().toNanos());
      return retry;
    }
  }

  /** When to try again after an attempt that failed without an answer: on the back-off. */
  final synchronized long retryAfterFailure() {
    long retry = backoffNanos;
    backoffNanos = Math.min(backoffNanos * 2, session.settings().maxBackoff().toNanos());
    return retry;
  }

  /** No waiter is left: the timer has nothing to wake. */
  final synchronized void stopTimerIfEmpty() {
    if (!hasWaiters()) {
      cancelTimer();
    }
  }

  /**
   * Starts {@code hold} and completes {@code future} with its lease on the client's event thread,
   * after {@code onGrant} (null for none); releases it if the waiter gave up meanwhile.
   */
  final void grant(CompletableFuture<Lease> future, JdbcHold hold, Consumer<JdbcHold> onGrant) {
    grant(future, hold, onGrant, false);
  }

  /**
   * As {@link #grant(CompletableFuture, JdbcHold, Consumer)}; {@code onThisThread}: completes
   * {@code future} here, a statement thread, for a waiter whose future no caller's callback
   * depends on (a thread blocked in {@code acquire}), saving the hop to the event thread.
   */
  final void grant(CompletableFuture<Lease> future, JdbcHold hold, Consumer<JdbcHold> onGrant, boolean onThisThread) {
    hold.start();
    JdbcLease lease = new JdbcLease(hold);
    Runnable complete = () -> {
      if (onGrant != null) {
        onGrant.accept(hold);
      }
      if (!future.complete(lease)) {
        hold.release(); // the waiter gave up (timeout, cancel) while the grant was on its way
      }
    };
    if (onThisThread) {
      complete.run();
      return;
    }
    try {
      session.events().execute(complete);
    } catch (RejectedExecutionException e) {
      hold.release();
    }
  }

  private void schedule(long delayNanos) { // guarded by this
    cancelTimer();
    try {
      timer = session.timer().schedule(this::wake, delayNanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      timer = null; // closing
    }
  }

  private void cancelTimer() { // guarded by this
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }
}
