package dev.baton.internal.lock;

import dev.baton.BatonInterruptedException;
import dev.baton.SessionLostException;
import dev.baton.internal.engine.HeldLock;
import dev.baton.internal.engine.LockDelay;
import dev.baton.internal.engine.OwnerData;
import dev.baton.internal.engine.QueueWaiter;
import dev.baton.internal.session.Durations;
import dev.baton.internal.session.Errors;
import dev.baton.internal.session.Session;
import dev.baton.lock.AcquireTimeoutException;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * One kind of node in an ordered queue, taken by threads: the blocking and asynchronous
 * acquisition that the mutex and both halves of the read-write lock share. Blocking acquisition
 * is reentrant per thread (a map from thread to held lock, so one object can serve every thread
 * of a client); asynchronous acquisition is bound to no thread and queues anew each time.
 */
final class QueueLock {

  /**
   * Consulted before a thread that does not hold this lock queues for it: empty to queue as
   * usual, an acquisition to hold at once (a read-write lock's downgrade), or an exception to
   * refuse (its upgrade, which would wait behind the caller's own read lock forever).
   */
  interface Admission {
    Optional<QueueWaiter.Acquisition> admit(Thread thread, Duration timeout);
  }

  /** Every thread queues. */
  static final Admission QUEUE = (thread, timeout) -> Optional.empty();

  /** A thread's hold: the lease state and the node it stands on. */
  record Hold(HeldLock lock, QueueWaiter.Acquisition acquisition) {}

  private final Session session;
  private final String path;
  private final String serverPath;
  private final QueueWaiter.QueueLayout layout;
  private final QueueWaiter.QueueRule rule;
  private final Admission admission;
  private final ConcurrentHashMap<Thread, Hold> heldByThread = new ConcurrentHashMap<>();
  private final Cohort cohort;
  private long lockDelayNanos;

  QueueLock(Session session, String path, QueueWaiter.QueueLayout layout, QueueWaiter.QueueRule rule,
      Admission admission) {
    this.session = session;
    this.path = path;
    this.serverPath = session.settings().onServer(path);
    this.layout = layout;
    this.rule = rule;
    this.admission = admission;
    this.cohort = null;
  }

  /** A lock whose waiters share one node through {@code cohort} (see {@link dev.baton.lock.MutexOptions}). */
  QueueLock(Session session, String path, QueueWaiter.QueueLayout layout, QueueWaiter.QueueRule rule,
      Cohort cohort) {
    this.session = session;
    this.path = path;
    this.serverPath = session.settings().onServer(path);
    this.layout = layout;
    this.rule = rule;
    this.admission = QUEUE;
    this.cohort = cohort;
  }

  /** {@code timeout == null} waits without limit; see {@link dev.baton.lock.Mutex} for the contract. */
  Optional<Lease> acquireBlocking(Duration timeout, boolean timeoutThrows) {
    session.checkOpen();
    Thread thread = Thread.currentThread();
    Hold held = heldByThread.get(thread);
    if (held != null && held.lock().enter()) {
      if (held.lock().state() == LeaseState.LOST) {
        held.lock().exit();
        throw new SessionLostException("The lock " + path + " held by thread '" + thread.getName()
            + "' was lost with its session; close its lease before acquiring again");
      }
      return Optional.of(held.lock().newLease());
    }
    Optional<QueueWaiter.Acquisition> admitted;
    try {
      admitted = admission.admit(thread, timeout);
    } catch (AcquireTimeoutException e) {
      if (!timeoutThrows) {
        return Optional.empty();
      }
      throw e;
    }
    if (admitted.isPresent()) {
      return Optional.of(hold(thread, new HeldLock(session, admitted.get(), path)));
    }
    if (cohort != null) {
      if (timeout == null || !timeout.isZero()) {
        return acquireThroughCohort(thread, timeout, timeoutThrows);
      }
      Optional<HeldLock> cached = cohort.tryCached();
      if (cached.isPresent()) {
        return Optional.of(hold(thread, cached.get()));
      }
      if (cohort.busy()) {
        return timedOut(timeout, timeoutThrows); // this client holds or queues: someone is ahead
      }
      // Nobody of this client is in the queue: try once with a node of this acquisition's own.
    }
    QueueWaiter waiter = newWaiter(thread, timeout);
    CompletableFuture<QueueWaiter.Acquisition> pending = waiter.start(
        timeout == null ? -1 : Durations.timeoutNanos(timeout), () -> new AcquireTimeoutException(path, timeout));
    QueueWaiter.Acquisition acquisition;
    try {
      acquisition = pending.get();
    } catch (InterruptedException e) {
      throw interrupted(path, e, waiter::cancel, pending, this::release);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof AcquireTimeoutException) {
        if (!timeoutThrows) {
          return Optional.empty();
        }
        // A fresh exception, so the stack trace shows the caller rather than the timer.
        throw new AcquireTimeoutException(path, timeout);
      }
      throw Errors.translate(cause, path);
    }
    return Optional.of(hold(thread, newHeldLock(acquisition)));
  }

  private Optional<Lease> acquireThroughCohort(Thread thread, Duration timeout, boolean timeoutThrows) {
    CompletableFuture<HeldLock> pending = cohort.acquire(thread,
        timeout == null ? -1 : Durations.timeoutNanos(timeout), () -> new AcquireTimeoutException(path, timeout));
    HeldLock lock;
    try {
      lock = pending.get();
    } catch (InterruptedException e) {
      throw interrupted(path, e, () -> pending.cancel(false), pending, granted -> granted.newLease().close());
    } catch (ExecutionException e) {
      if (e.getCause() instanceof AcquireTimeoutException) {
        return timedOut(timeout, timeoutThrows);
      }
      throw Errors.translate(e.getCause(), path);
    }
    return Optional.of(hold(thread, lock));
  }

  /**
   * Cleans up after a blocking acquire was interrupted and returns what to throw: the waiter is
   * withdrawn, or else ({@code withdraw} false) it was granted, timed out or failed as the
   * interrupt came; a grant is released once it is in, anything else leaves nothing behind. The
   * interrupt wins either way, so the caller hears of it with the thread's flag set again.
   */
  static <T> BatonInterruptedException interrupted(String path, InterruptedException e, BooleanSupplier withdraw,
      CompletableFuture<T> pending, Consumer<? super T> release) {
    Thread.currentThread().interrupt();
    if (!withdraw.getAsBoolean()) {
      // Not join(): a timeout or failure would escape as a raw CompletionException.
      pending.thenAccept(release);
    }
    return new BatonInterruptedException("Interrupted while waiting for " + path, e);
  }

  private Optional<Lease> timedOut(Duration timeout, boolean timeoutThrows) {
    if (!timeoutThrows) {
      return Optional.empty();
    }
    // A fresh exception, so the stack trace shows the caller rather than the timer.
    throw new AcquireTimeoutException(path, timeout);
  }

  private Lease hold(Thread thread, HeldLock lock) {
    Hold hold = new Hold(lock, lock.acquisition());
    heldByThread.put(thread, hold);
    lock.onRelease(() -> heldByThread.remove(thread, hold));
    return lock.newLease();
  }

  /** {@code timed == false} waits without limit; see {@link dev.baton.lock.Mutex#acquireAsync()}. */
  CompletableFuture<Lease> acquireAsync(Duration timeout, boolean timed) {
    session.checkOpen();
    if (cohort != null) {
      return acquireAsyncThroughCohort(timeout, timed);
    }
    QueueWaiter waiter = newWaiter(Thread.currentThread(), timeout);
    CompletableFuture<Lease> leased = new CompletableFuture<>();
    waiter.start(timed ? Durations.timeoutNanos(timeout) : -1, () -> new AcquireTimeoutException(path, timeout))
        .whenComplete((acquisition, error) -> Session.executeQuietly(session.eventExecutor(), () -> {
          if (error != null) {
            leased.completeExceptionally(Errors.translate(error, path));
            return;
          }
          Lease lease = newHeldLock(acquisition).newLease();
          if (!leased.complete(lease)) {
            lease.close(); // cancelled by the caller while the grant was on its way
          }
        }));
    leased.whenComplete((lease, error) -> {
      if (error instanceof CancellationException) {
        waiter.cancel();
      }
    });
    return leased;
  }

  private CompletableFuture<Lease> acquireAsyncThroughCohort(Duration timeout, boolean timed) {
    CompletableFuture<HeldLock> pending = cohort.acquire(Thread.currentThread(),
        timed ? Durations.timeoutNanos(timeout) : -1, () -> new AcquireTimeoutException(path, timeout));
    CompletableFuture<Lease> leased = new CompletableFuture<>();
    pending.whenComplete((lock, error) -> Session.executeQuietly(session.eventExecutor(), () -> {
      if (error != null) {
        leased.completeExceptionally(Errors.translate(error, path));
      } else if (!leased.complete(lock.newLease())) {
        lock.newLease().close(); // cancelled by the caller while the grant was on its way
      }
    }));
    leased.whenComplete((lease, error) -> {
      if (error instanceof CancellationException) {
        pending.cancel(false);
      }
    });
    return leased;
  }

  /**
   * Turns on lock-delay (see {@link LockDelay}) for waiters queued from now on; they record
   * their holds and releases on the lock path. Call before use.
   */
  QueueLock withLockDelay(Duration lockDelay) {
    this.lockDelayNanos = Durations.timeoutNanos(lockDelay);
    return this;
  }

  private HeldLock newHeldLock(QueueWaiter.Acquisition acquisition) {
    HeldLock lock = new HeldLock(session, acquisition, path);
    if (lockDelayNanos > 0) {
      lock.markReleases();
    }
    return lock;
  }

  private QueueWaiter newWaiter(Thread thread, Duration timeout) {
    boolean mayWait = timeout == null || !timeout.isZero();
    return new QueueWaiter(session, serverPath, layout, rule, OwnerData.forThread(thread), mayWait)
        .withLockDelay(lockDelayNanos);
  }

  private void release(QueueWaiter.Acquisition acquisition) {
    newHeldLock(acquisition).newLease().close();
  }

  /** The hold of {@code thread} through a blocking acquire, if it has one not yet released. */
  Optional<Hold> heldBy(Thread thread) {
    Hold held = heldByThread.get(thread);
    return held == null || held.lock().state() == LeaseState.RELEASED ? Optional.empty() : Optional.of(held);
  }

  boolean isHeldByCurrentThread() {
    return heldBy(Thread.currentThread()).isPresent();
  }
}
