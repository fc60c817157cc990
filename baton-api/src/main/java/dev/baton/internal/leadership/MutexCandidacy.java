package dev.baton.internal.leadership;

import dev.baton.ClientClosedException;
import dev.baton.FailureListener;
import dev.baton.leader.LeadershipListener;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the leader latch and the leader selector share, on every backend: a participant's place in
 * the election's queue ({@link ElectionQueue}: a mutex's on Redis and SQL, Curator's layout on
 * ZooKeeper), the lease that place turns into once first (so leadership is reported lost exactly
 * as the lock's lease is: with the session on ZooKeeper, SUSPECT on a suspended connection), the
 * listeners, and reading the participants back.
 *
 * <p>Each stay in the queue is a {@link Term}: queued, then leading, then over (given up, lost or
 * closed). At most one term is current; events of an older term are ignored. All state is guarded
 * by {@code this}; nothing that can call back into a backend or a listener is called holding it.
 */
abstract class MutexCandidacy {
  private static final Logger log = LoggerFactory.getLogger(MutexCandidacy.class);

  enum Phase { LATENT, STARTED, CLOSED }

  /** One stay in the queue. */
  static final class Term {
    final long number;
    /** The request for the lock, once sent; cancelled to withdraw. */
    CompletableFuture<Lease> queued;
    /** Set once the lock is granted; null while queued. */
    Leadership lease;
    /** Whether listeners were last told this term leads. */
    boolean leading;
    /** A selector's: the thread running its task, once started. */
    Thread task;
    /** A selector's: leadership was taken from the running task. */
    boolean revoked;

    Term(long number) {
      this.number = number;
    }
  }

  final ElectionQueue queue;
  final String participantId;
  final LeadershipListeners listeners = new LeadershipListeners();
  final FailureReport failure = new FailureReport();
  private final String what;

  /** The term while it leads; read without the lock by {@link #hasLeadership()}. */
  private volatile Term leadingTerm;
  /** Completed and replaced at each change of leadership, phase or failure: see {@link #signalChange()}. */
  private CompletableFuture<Void> nextChange = new CompletableFuture<>();
  Phase phase = Phase.LATENT; // guarded by this
  Term current; // guarded by this
  private long terms; // guarded by this
  private int failures; // guarded by this

  /**
   * @param queue the election's queue; this participant's alone
   * @param what the recipe's name, for messages
   */
  MutexCandidacy(ElectionQueue queue, String participantId, String what) {
    this.queue = Objects.requireNonNull(queue, "queue");
    this.participantId = checkParticipantId(participantId);
    queue.checkParticipantId(participantId);
    this.what = what;
  }

  private static String checkParticipantId(String participantId) {
    Objects.requireNonNull(participantId, "participantId must not be null");
    if (participantId.isBlank()) {
      throw new IllegalArgumentException("participantId must not be blank, was '" + participantId + "'");
    }
    return participantId;
  }

  /**
   * The current term's lease changed state (or was just granted); called with this object's lock
   * held, once per change or more (it must look at the state, not count calls).
   *
   * @return what to do once the lock is released and the listeners told, or null
   */
  abstract Runnable leaseChanged(Term term, LeaseState state);

  /** What closing a term's leadership does once its lock is released (a latch joins again). */
  abstract void steppedDown(Term term);

  // ---- life cycle -------------------------------------------------------------------------

  /** Throws {@link ClientClosedException} if the backend's client is closed. */
  final void checkOpen() {
    queue.checkOpen();
  }

  final void startOnce() {
    queue.checkOpen();
    synchronized (this) {
      if (phase == Phase.CLOSED) {
        throw new IllegalStateException(this + " is closed; a closed " + what + " cannot be started again");
      }
      if (phase == Phase.STARTED) {
        throw new IllegalStateException(this + " is already started");
      }
      phase = Phase.STARTED;
    }
    join();
  }

  /** Takes a place at the back of the queue, unless closed, failed or already in it. */
  final void join() {
    Term term;
    synchronized (this) {
      if (phase != Phase.STARTED || current != null || failure.hasFailed() || queue.isClosed()) {
        return;
      }
      term = new Term(++terms);
      current = term;
    }
    CompletableFuture<Lease> queued;
    try {
      queued = queue.queue(participantId);
    } catch (RuntimeException e) {
      queued = CompletableFuture.failedFuture(e);
    }
    boolean stale;
    synchronized (this) {
      term.queued = queued;
      stale = current != term;
    }
    if (stale) {
      queued.cancel(false); // closed while queueing: close() left the withdrawal to us
    }
    queued.whenComplete((lease, error) -> {
      if (error != null) {
        queueFailed(term, error);
      } else {
        granted(term, lease);
      }
    });
  }

  private void granted(Term term, Lease lock) {
    Leadership lease = queue.leadership(lock, () -> stepDown(term), () -> steppedDown(term));
    boolean stale;
    synchronized (this) {
      stale = current != term || phase != Phase.STARTED;
      if (!stale) {
        term.lease = lease;
        failures = 0;
      }
    }
    if (stale) {
      lock.close();
      return;
    }
    // Where the backend reports SUSPECT and LOST before another client can be granted the lock.
    queue.watch(lock, () -> reconcile(term));
    reconcile(term); // a change before the listener was added is seen here
  }

  /** Brings the recipe in line with the state of {@code term}'s lease. */
  final void reconcile(Term term) {
    Runnable after;
    synchronized (this) {
      if (current != term || term.lease == null) {
        return;
      }
      after = leaseChanged(term, term.lease.state());
    }
    listeners.deliver();
    if (after != null) {
      after.run();
    }
  }

  /** Closing the leadership lease: listeners hear of the loss before the lock is released. */
  private void stepDown(Term term) {
    synchronized (this) {
      lose(term);
    }
    listeners.deliver();
  }

  /**
   * Queueing failed. Connection trouble and races are retried after the backend's pause, for as
   * long as the participant is started; an error retrying cannot cure (the client closed, a name,
   * id or ACL the backend refuses) ends the candidacy: recorded for {@code failure()}, told to the
   * failure listeners, logged once.
   */
  private void queueFailed(Term term, Throwable error) {
    Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    boolean retry;
    boolean fatal;
    int attempt;
    synchronized (this) {
      if (current != term) {
        return; // withdrawn by close(), or replaced
      }
      current = null;
      boolean started = phase == Phase.STARTED && !(cause instanceof CancellationException);
      fatal = started && !queue.curable(cause);
      retry = started && !fatal;
      attempt = ++failures;
    }
    if (fatal) {
      RuntimeException reason = queue.translate(cause);
      if (reason instanceof ClientClosedException) {
        // Closing the client while queued is how applications shut down: not an error to page on.
        log.debug("{} stopped: its client closed while it queued on {}", this, queue.path());
      } else {
        log.error("{} stopped: it cannot queue on {}, and retrying cannot cure why", this, queue.path(), reason);
      }
      failure.fail(reason);
      synchronized (this) {
        signalChange(); // a caller in await() sees the failure
      }
    } else if (retry) {
      Duration delay = queue.retryDelay(attempt);
      log.warn("{} could not queue on {}; trying again in {} ms", this, queue.path(), delay.toMillis(),
          queue.translate(cause));
      queue.schedule(this::join, delay);
    }
  }

  /** Marks the term as leading and records the gain; under the lock. */
  final void gain(Term term) {
    if (!term.leading) {
      term.leading = true;
      listeners.gained(term.lease);
      leadershipChanged();
    }
  }

  /** Marks the term as not leading and records the loss; under the lock. */
  final void lose(Term term) {
    if (term.leading) {
      term.leading = false;
      listeners.lost(term.lease);
      leadershipChanged();
    }
  }

  /**
   * Called under the lock whenever leadership is gained or lost (or a term ends): records the
   * leading term for {@link #hasLeadership()}, and wakes those waiting for a change.
   */
  final void leadershipChanged() {
    Term term = current;
    leadingTerm = term != null && term.leading ? term : null;
    signalChange();
  }

  /**
   * Wakes the callers waiting for a change; under the lock. They wait on a future outside the
   * monitor rather than in {@code wait()}, so a waiting caller holds no monitor that the thread
   * recording the change needs.
   */
  final void signalChange() {
    CompletableFuture<Void> woken = nextChange;
    nextChange = new CompletableFuture<>();
    woken.complete(null);
  }

  /** What the next change completes; read under the lock together with the state it follows. */
  final CompletableFuture<Void> nextChange() {
    return nextChange;
  }

  /** Whether this participant leads now: a leading term whose lease is held (not suspect). */
  public final boolean hasLeadership() {
    Term term = leadingTerm;
    return term != null && term.lease.state() == LeaseState.HELD;
  }

  /** Ends {@code term} if current; under the lock. */
  final void end(Term term) {
    if (current == term) {
      current = null;
      leadershipChanged();
    }
  }

  /** Withdraws a term that does not lead: cancels its request, or releases a lock granted meanwhile. */
  static void withdraw(Term term, Leadership lease, CompletableFuture<Lease> queued) {
    if (lease != null) {
      lease.close();
    } else if (queued != null) {
      queued.cancel(false); // a grant on its way is released by the queue or granted()
    }
  }

  // ---- listeners --------------------------------------------------------------------------

  public final void addListener(LeadershipListener listener) {
    addListener(listener, queue.noticeExecutor());
  }

  public final void addListener(LeadershipListener listener, Executor executor) {
    Objects.requireNonNull(listener, "listener");
    listeners.add(listener, Objects.requireNonNull(executor, "executor"));
  }

  public final void removeListener(LeadershipListener listener) {
    listeners.remove(listener);
  }

  public final Optional<RuntimeException> failure() {
    return failure.failure();
  }

  public final void addFailureListener(FailureListener listener) {
    failure.add(Objects.requireNonNull(listener, "listener"), queue.failureExecutor());
  }

  /** Throws the failure that ended the candidacy, if one did. */
  final void throwIfFailed() {
    failure.failure().ifPresent(error -> {
      throw new IllegalStateException(this + " has stopped: " + error.getMessage(), error);
    });
  }

  // ---- reading the election ---------------------------------------------------------------

  /** The leader's id, read from the backend. */
  public final Optional<String> leaderId() {
    return queue.leaderId();
  }

  /** The leader's id, then the others' in queue order, read from the backend. */
  public final List<String> participants() {
    return queue.participants();
  }

  public final String path() {
    return queue.path();
  }

  public final String participantId() {
    return participantId;
  }

  @Override
  public String toString() {
    return what + "[" + queue.path() + ", " + participantId + "]";
  }
}
