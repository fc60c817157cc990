package dev.baton.internal.leader;

import dev.baton.ClientClosedException;
import dev.baton.FailureListener;
import dev.baton.internal.engine.HeldLock;
import dev.baton.internal.leadership.LeadershipListeners;
import dev.baton.internal.engine.LockListing;
import dev.baton.internal.engine.LockNodes;
import dev.baton.internal.engine.QueueRules;
import dev.baton.internal.engine.QueueWaiter;
import dev.baton.internal.session.Errors;
import dev.baton.internal.session.FailureReport;
import dev.baton.internal.session.Retrying;
import dev.baton.internal.session.Session;
import dev.baton.leader.LeadershipListener;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the leader latch and the leader selector share: a participant's place in the ordered queue
 * ({@link QueueWaiter}, with the mutex's rule: wait for the node just below), the lease that
 * place turns into once it is first ({@link HeldLock}, so leadership is reported lost exactly as
 * a lock is), the listeners, and reading the participants' ids back from the ensemble.
 *
 * <p>Each stay in the queue is a {@link Term}: queued, then leading, then over (given up, lost,
 * or closed). At most one term is current; events of an older term are ignored. All state is
 * guarded by {@code this}. Nothing that can take another object's lock (a waiter's, a held
 * lock's) is called while holding it: ZooKeeper callbacks take those locks first and this one
 * second.
 */
abstract class Candidacy {
  /** The term while it leads; read without the lock by {@link #hasLeadership()}. */
  private volatile Term leadingTerm;
  /** Completed and replaced at each change of leadership, phase or failure: see {@link #signalChange()}. */
  private CompletableFuture<Void> nextChange = new CompletableFuture<>();
  private static final Logger log = LoggerFactory.getLogger(Candidacy.class);

  /** ZooKeeper refuses a node's data past about 1 MiB (jute.maxbuffer); stay well below. */
  static final int MAX_ID_BYTES = 512 * 1024;

  enum Phase { LATENT, STARTED, CLOSED }

  /** One stay in the queue. */
  static final class Term {
    final long number;
    QueueWaiter waiter;
    boolean waiterStarted;
    /** Set once the queue granted the term; null while queued. */
    Lease lease;
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

  final Session session;
  final String path;
  final String serverPath;
  final String participantId;
  final LeadershipListeners listeners = new LeadershipListeners();
  final FailureReport failure = new FailureReport();
  private final byte[] idBytes;
  private final QueueWaiter.QueueLayout layout;
  private final String what;

  Phase phase = Phase.LATENT; // guarded by this
  Term current; // guarded by this
  private long terms; // guarded by this
  private int failures; // guarded by this

  Candidacy(Session session, String path, String participantId, QueueWaiter.QueueLayout layout, String what) {
    this.session = session;
    this.path = path;
    this.serverPath = session.settings().onServer(path);
    this.participantId = participantId;
    this.idBytes = participantId.getBytes(StandardCharsets.UTF_8);
    this.layout = layout;
    this.what = what;
  }

  /** A participant id as Curator stores it (UTF-8 node data): not null, not blank, not huge. */
  static String checkParticipantId(String participantId) {
    Objects.requireNonNull(participantId, "participantId must not be null");
    if (participantId.isBlank()) {
      throw new IllegalArgumentException("participantId must not be blank, was '" + participantId + "'");
    }
    int bytes = participantId.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_ID_BYTES) {
      throw new IllegalArgumentException("participantId is " + bytes + " bytes in UTF-8; at most "
          + MAX_ID_BYTES + " fit in a ZooKeeper node");
    }
    return participantId;
  }

  /**
   * The current term's lease changed state (or was just granted); called with this object's lock
   * held, once per change or more (it must look at the state, not count calls).
   *
   * @return what to do once the lock is released, or null
   */
  abstract Runnable leaseChanged(Term term, LeaseState state);

  /**
   * Whether a lease presumed lost keeps its node until it is closed: a selector's task may run on
   * after the interrupt, and the next leader must not start beside it while this session lives.
   */
  boolean keepsNodeWhileLost() {
    return false;
  }

  // ---- life cycle -------------------------------------------------------------------------

  final void startOnce() {
    session.checkOpen();
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

  /** Takes a place at the back of the queue, unless closed or already in it. */
  final void join() {
    Term term;
    QueueWaiter waiter;
    synchronized (this) {
      if (phase != Phase.STARTED || current != null || session.isClosed() || failure.hasFailed()) {
        return;
      }
      term = new Term(++terms);
      waiter = new QueueWaiter(session, serverPath, layout, QueueRules.EXCLUSIVE, idBytes, true);
      term.waiter = waiter;
      current = term;
    }
    CompletableFuture<QueueWaiter.Acquisition> queued = waiter.start(-1,
        () -> new IllegalStateException("a " + what + " waits without limit"));
    boolean stale;
    synchronized (this) {
      term.waiterStarted = true;
      stale = current != term;
    }
    if (stale) {
      waiter.cancel(); // closed while starting: close() left the cancel to us
    }
    queued.whenComplete((acquisition, error) -> {
      if (error != null) {
        queueFailed(term, error);
      } else {
        granted(term, acquisition);
      }
    });
  }

  private void granted(Term term, QueueWaiter.Acquisition acquisition) {
    Lease lease = new HeldLock(session, acquisition, path, !keepsNodeWhileLost()).newLease();
    // Direct: the lease's SUSPECT and LOST must reach listeners before another participant can lead.
    lease.addListener((l, state) -> reconcile(term), Runnable::run);
    boolean stale;
    synchronized (this) {
      stale = current != term || phase != Phase.STARTED;
      if (!stale) {
        term.lease = lease;
        failures = 0;
      }
    }
    if (stale) {
      lease.close();
      return;
    }
    reconcile(term);
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

  /**
   * Queueing failed. Connection trouble and races are retried after the retry policy's pause, for
   * as long as the participant is started; an error retrying cannot cure (this identity refused,
   * a bad ACL, the client closed) ends the candidacy: recorded for {@link #failure()}, told to the
   * failure listeners, and logged once.
   */
  private void queueFailed(Term term, Throwable error) {
    boolean retry;
    boolean fatal;
    synchronized (this) {
      if (current != term) {
        return; // cancelled by close(), or replaced
      }
      current = null;
      boolean started = phase == Phase.STARTED && !(error instanceof CancellationException);
      fatal = started && (session.isClosed() || Errors.isUnrecoverable(error));
      retry = started && !fatal;
      failures++;
    }
    if (fatal) {
      RuntimeException reason = session.isClosed() && !Errors.isUnrecoverable(error)
          ? new ClientClosedException(session.settings().connectString()) : Errors.translate(error, path);
      log.error("{} stopped: it cannot queue on {}, and retrying cannot cure why", this, path, reason);
      failure.fail(reason);
      synchronized (this) {
        signalChange(); // a caller in await() sees the failure
      }
    } else if (retry) {
      long delay = session.settings().retryPolicy().delayBefore(Math.min(failures, 10)).toNanos();
      log.warn("{} could not queue on {}; trying again in {} ms", this, path, delay / 1_000_000,
          Errors.translate(error, path));
      session.schedule(this::join, Math.max(delay, 1_000_000));
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
   * monitor rather than in {@code wait()}, so a waiting caller (a virtual thread above all) holds
   * no monitor that ZooKeeper's event thread needs to record the change.
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
    }
  }

  /**
   * Withdraws {@code term} from the queue or gives its leadership up; never under the lock. A
   * waiter not yet started is cancelled by {@link #join()} itself, which sees it is no longer
   * current.
   */
  static void withdraw(Term term, boolean waiterStarted, Lease lease) {
    if (lease != null) {
      lease.close();
    } else if (waiterStarted) {
      term.waiter.cancel(); // if the grant is on its way, granted() sees the term stale and releases
    }
  }

  // ---- listeners --------------------------------------------------------------------------

  public final void addListener(LeadershipListener listener) {
    Objects.requireNonNull(listener, "listener");
    // Beside the lease and connection-state notices, where no user's async result can hold it up.
    listeners.add(listener, session.noticeExecutor());
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
    failure.add(listener, session.eventExecutor());
  }

  /** Throws the failure that ended the candidacy, if one did; under the lock. */
  final void throwIfFailed() {
    failure.failure().ifPresent(error -> {
      throw new IllegalStateException(this + " has stopped: " + error.getMessage(), error);
    });
  }

  // ---- reading the election ---------------------------------------------------------------

  /** Ids of the participants in queue order, read from the ensemble; at most {@code limit}. */
  final List<String> participantIds(int limit) {
    session.checkOpen();
    List<String> children = LockListing.children(session, path, serverPath);
    List<String> ids = new ArrayList<>();
    for (String node : LockNodes.sortedBySequence(children, layout.kinds())) {
      if (ids.size() >= limit) {
        break;
      }
      String nodePath = serverPath + "/" + node;
      try {
        byte[] data = Retrying.call(session, path, zk -> zk.getData(nodePath, false, null));
        ids.add(data == null ? "" : new String(data, StandardCharsets.UTF_8));
      } catch (RuntimeException e) {
        if (!(e.getCause() instanceof KeeperException.NoNodeException)) {
          throw e;
        }
        // Left between the listing and the read: no longer a participant.
      }
    }
    return ids;
  }

  public final Optional<String> leaderId() {
    List<String> first = participantIds(1);
    return first.isEmpty() ? Optional.empty() : Optional.of(first.get(0));
  }

  public final List<String> participants() {
    return participantIds(Integer.MAX_VALUE);
  }

  public final String path() {
    return path;
  }

  public final String participantId() {
    return participantId;
  }

  @Override
  public String toString() {
    return what + "[" + path + ", " + participantId + "]";
  }
}
