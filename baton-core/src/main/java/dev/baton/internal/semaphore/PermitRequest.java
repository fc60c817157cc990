package dev.baton.internal.semaphore;

import dev.baton.ClientClosedException;
import dev.baton.ConnectionState;
import dev.baton.internal.engine.QueueRules;
import dev.baton.internal.engine.QueueWaiter;
import dev.baton.internal.session.Errors;
import dev.baton.internal.session.Nodes;
import dev.baton.internal.session.Session;
import dev.baton.internal.session.SessionObserver;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * One acquisition of permits, as Curator's {@code InterProcessSemaphoreV2} does it, with fewer
 * waits: take the {@code <path>/locks} mutex, create the lease nodes under {@code <path>/leases},
 * wait until the count allows them ({@link PermitCount}), let the mutex go.
 *
 * <p>Why the mutex: a waiter holds it while it waits, so at most one client at a time has a lease
 * node that does not hold a permit yet. Without it, two waiters' nodes could keep the count over
 * the limit for each other, and neither would ever get in. Curator clients count on every client
 * taking it.
 *
 * <p>Round trips of an uncontended acquisition: two. The mutex's create and listing go together
 * ({@link QueueWaiter}), so do the lease creates and their listings ({@link PermitNodeBatch}), whose
 * listing decides; the mutex node's delete is not waited for. Only when that listing is over the
 * limit does {@link PermitCountWait} wait with a children watch.
 *
 * <p>Faults: while queued on the mutex, its {@link QueueWaiter} rides out connection loss and
 * expiry. Once the mutex is ours, expiry takes our nodes with the session, so the request starts
 * over from the mutex on the new session (a new round; callbacks of an old round are ignored and
 * release what they got). A timeout, cancellation or failure removes every node made.
 *
 * <p>Locking: state is guarded by {@code this}. Code holding this monitor never starts or
 * withdraws a {@link QueueWaiter} (whose monitor is held while it completes its future); the
 * waiters' futures are followed on the session's scheduler, so no two monitors are ever taken in
 * both orders. Steps that must leave the monitor first are returned as a {@code Runnable}.
 */
final class PermitRequest implements SessionObserver {
  private enum Phase { LOCKING, LEASING, COUNTING, GRANTED, ABANDONED }

  private final Session session;
  private final String path;
  private final String locksPath;
  private final String leasesPath;
  private final int permits;
  private final int count;
  private final byte[] data;
  private final boolean mayWait;
  private final CompletableFuture<List<QueueWaiter.Acquisition>> result = new CompletableFuture<>();
  private final Executor offWaiterMonitor;
  private Supplier<RuntimeException> onTimeout;

  // The current round's parts; a new round (after expiry) starts from scratch.
  private Phase phase = Phase.LOCKING;
  private int round;
  private QueueWaiter lockWaiter;
  private QueueWaiter.Acquisition lock;
  private PermitNodeBatch batch;
  private PermitCountWait counter;
  private ScheduledFuture<?> timer;

  PermitRequest(Session session, String path, int permits, int count, byte[] data, boolean mayWait) {
    String serverPath = session.settings().onServer(path);
    this.session = session;
    this.path = path;
    this.locksPath = serverPath + "/locks";
    this.leasesPath = serverPath + "/leases";
    this.permits = permits;
    this.count = count;
    this.data = data;
    this.mayWait = mayWait;
    this.offWaiterMonitor = task -> {
      try {
        session.scheduler().execute(task);
      } catch (RejectedExecutionException e) {
        // The client is closing: sessionClosed abandoned this request, its nodes end with the session.
      }
    };
  }

  /**
   * Starts; the future completes with the lease nodes, or fails with {@code onTimeout}'s exception
   * after {@code timeoutNanos} ({@code < 0}: no limit) or, for a request that may not wait, on
   * finding the mutex or the permits taken.
   */
  CompletableFuture<List<QueueWaiter.Acquisition>> start(long timeoutNanos, Supplier<RuntimeException> onTimeout) {
    this.onTimeout = onTimeout;
    session.addObserver(this);
    try {
      if (timeoutNanos >= 0 && mayWait) {
        ScheduledFuture<?> scheduled = session.scheduler().schedule(
            () -> abandon(-1, onTimeout.get()), timeoutNanos, TimeUnit.NANOSECONDS);
        synchronized (this) {
          timer = scheduled;
        }
      }
    } catch (RejectedExecutionException e) {
      // The client is closing: reported below.
    }
    lockStep(0);
    if (session.isClosed()) {
      abandon(-1, new ClientClosedException(session.settings().connectString()));
    }
    return result;
  }

  /** Withdraws unless the permits were granted (then they are the caller's); true if it withdrew. */
  boolean cancel() {
    return abandon(-1, new CancellationException("acquisition of permits of " + path + " cancelled"));
  }

  // ---- the steps ----------------------------------------------------------------------------

  private void lockStep(int forRound) {
    QueueWaiter waiter = new QueueWaiter(session, locksPath, QueueRules.LOCK_LAYOUT, QueueRules.EXCLUSIVE, data, mayWait);
    CompletableFuture<QueueWaiter.Acquisition> locked = waiter.start(-1, onTimeout);
    boolean stale;
    synchronized (this) {
      stale = forRound != round || phase != Phase.LOCKING;
      if (!stale) {
        lockWaiter = waiter;
      }
    }
    if (stale) {
      waiter.cancel(); // a grant already on its way is released by onLocked
    }
    locked.whenCompleteAsync((acquisition, error) -> onLocked(forRound, acquisition, error), offWaiterMonitor);
  }

  private void onLocked(int forRound, QueueWaiter.Acquisition acquisition, Throwable error) {
    PermitNodeBatch leases = null;
    synchronized (this) {
      if (forRound == round && phase == Phase.LOCKING && error == null) {
        lock = acquisition;
        lockWaiter = null;
        phase = Phase.LEASING;
        batch = leases = new PermitNodeBatch(session, leasesPath, count, data);
      }
    }
    if (leases != null) {
      leases.start(onTimeout, offWaiterMonitor)
          .whenCompleteAsync((created, failure) -> onLeasesCreated(forRound, failure), offWaiterMonitor);
    } else if (error != null) {
      abandon(forRound, Errors.translate(error, path));
    } else {
      release(acquisition); // granted to a round that has ended
    }
  }

  /** Every lease node is there: decide on the listings that came with the creates. */
  private void onLeasesCreated(int forRound, Throwable failure) {
    Runnable next;
    synchronized (this) {
      if (forRound != round || phase != Phase.LEASING) {
        return; // the round's end cancelled the batch, which deletes its nodes
      }
      if (failure != null) {
        next = () -> abandon(forRound, Errors.translate(failure, path));
      } else if (batch.created().stream().anyMatch(node -> node.handle() != lock.handle())) {
        // The session was replaced after the mutex was granted: the mutex went with the old one.
        next = () -> restart(forRound);
      } else {
        next = switch (batch.verdict(permits)) {
          case HOLD -> grant();
          case MISSING -> () -> restart(forRound);
          case WAIT -> mayWait ? startCounting(forRound) : () -> abandon(forRound, onTimeout.get());
        };
      }
    }
    next.run();
  }

  /** Called holding the monitor; returns what to do after leaving it. */
  private Runnable startCounting(int forRound) {
    phase = Phase.COUNTING;
    counter = new PermitCountWait(session, lock.handle(), leasesPath, batch.names(), permits,
        verdict -> onCounted(forRound, verdict),
        error -> abandon(forRound, Errors.translate(error, path)));
    return counter::start;
  }

  private void onCounted(int forRound, PermitCount.Verdict verdict) {
    Runnable next;
    synchronized (this) {
      if (forRound != round || phase != Phase.COUNTING) {
        return;
      }
      next = verdict == PermitCount.Verdict.HOLD ? grant() : () -> restart(forRound);
    }
    next.run();
  }

  // ---- endings ------------------------------------------------------------------------------

  /** Called holding the monitor; returns what to do after leaving it. */
  private Runnable grant() {
    phase = Phase.GRANTED;
    finish();
    QueueWaiter.Acquisition mutexNode = lock;
    List<QueueWaiter.Acquisition> granted = batch.created();
    return () -> {
      release(mutexNode); // not waited for: the next waiter may go as soon as it is deleted
      result.complete(granted);
    };
  }

  /** Our nodes are gone or unusable, the session lives on (or a new one): start from the mutex. */
  private void restart(int forRound) {
    Runnable cleanUp;
    synchronized (this) {
      if (forRound != round || phase == Phase.GRANTED || phase == Phase.ABANDONED) {
        return;
      }
      cleanUp = endRound();
      round++;
      phase = Phase.LOCKING;
    }
    cleanUp.run();
    lockStep(forRound + 1);
  }

  /** Fails the request unless it ended already; {@code forRound < 0} matches any round. */
  private boolean abandon(int forRound, RuntimeException reason) {
    Runnable cleanUp;
    synchronized (this) {
      if (phase == Phase.GRANTED || phase == Phase.ABANDONED || (forRound >= 0 && forRound != round)) {
        return false;
      }
      phase = Phase.ABANDONED;
      finish();
      cleanUp = endRound();
    }
    cleanUp.run();
    result.completeExceptionally(reason);
    return true;
  }

  /**
   * Detaches the current round's parts (called holding the monitor) and returns their clean-up:
   * waiters withdraw and remove their own nodes, granted nodes are deleted.
   */
  private Runnable endRound() {
    QueueWaiter waiter = lockWaiter;
    QueueWaiter.Acquisition mutexNode = lock;
    PermitNodeBatch leases = batch;
    PermitCountWait count = counter;
    lockWaiter = null;
    lock = null;
    batch = null;
    counter = null;
    return () -> {
      if (count != null) {
        count.stop();
      }
      if (waiter != null) {
        waiter.cancel(); // a grant already on its way is released by onLocked
      }
      if (leases != null) {
        leases.cancel();
      }
      release(mutexNode);
    };
  }

  private void release(QueueWaiter.Acquisition acquisition) {
    if (acquisition != null) {
      Nodes.deleteInBackground(session, acquisition.handle(), acquisition.serverNodePath());
    }
  }

  private void finish() {
    if (timer != null) {
      timer.cancel(false);
    }
    session.removeObserver(this);
  }

  // ---- session ------------------------------------------------------------------------------

  @Override
  public void connectionStateChanged(ConnectionState state, Session.Handle affected) {
    if (state != ConnectionState.LOST || !affected.isExpired()) {
      return; // a reconnect of the same session keeps our nodes, and the server our watch
    }
    int expiredRound;
    synchronized (this) {
      if (lock == null || lock.handle() != affected || (phase != Phase.LEASING && phase != Phase.COUNTING)) {
        return; // while queued on the mutex, its QueueWaiter queues again by itself
      }
      expiredRound = round;
    }
    restart(expiredRound);
  }

  @Override
  public void sessionClosed() {
    abandon(-1, new ClientClosedException(session.settings().connectString()));
  }

  @Override
  public String toString() {
    return "PermitRequest[" + path + ", " + count + " of " + permits + " permits]";
  }
}
