package dev.baton.internal.jdbc;

import dev.baton.internal.leadership.ParticipantQueue;
import dev.baton.lock.Lease;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This client's waiters on one lock name, in arrival order, sharing one check: at most one grant
 * attempt is in flight for the name, made for the waiter at the head. A failed attempt tells how
 * long the holder's row has left; the next attempt comes when a release is heard (this client's
 * own, or PostgreSQL's notify from another client), or at the latest when the holder's row would
 * expire (a crashed holder never notifies), or, without notifies (MySQL, or the listening
 * connection down), on a back-off bounded by that expiry. So a hand-over costs each waiting
 * client one or two statements, whatever its number of waiters, and a waiter holds no thread.
 */
final class LockQueue extends CheckQueue {
  private static final Logger log = LoggerFactory.getLogger(LockQueue.class);

  /** One waiter: completes its future with a lease, on the client's event executor (a blocking acquire's on the statement thread). */
  static final class Waiter {
    final CompletableFuture<Lease> future = new CompletableFuture<>();
    final JdbcMutex mutex;
    final String thread;
    final Instant queuedAt = Instant.now();
    final long queuedNanos = System.nanoTime();
    /** Set by a blocking acquire: the thread the hold is bound to, for reentrancy. */
    final Thread boundTo;
    /** The owner every attempt of this waiter writes: a retry after a lost reply finds its own grant. */
    final String owner;
    /** Tokens the grant reserves: 1, or {@link dev.baton.FencingTokens#PER_NODE} for a {@link JdbcCohort}. */
    final long reserve;
    /** An attempt failed without an answer: the row may name this waiter. */
    volatile boolean uncertain;

    /**
     * Whether this waiter is a leader latch's or selector's participant ({@link ParticipantQueue}):
     * its release is a step-down, after which this client always lets another client in, even one
     * whose first attempt has not yet marked the row wanted (a latch joins again at once, and would
     * otherwise take the row straight back and keep it).
     */
    boolean stepsDown() {
      return thread.startsWith(ParticipantQueue.PREFIX);
    }

    Waiter(JdbcMutex mutex, Thread boundTo, String thread, String owner) {
      this(mutex, boundTo, thread, owner, 1);
    }

    Waiter(JdbcMutex mutex, Thread boundTo, String thread, String owner, long reserve) {
      this.reserve = reserve;
      this.mutex = mutex;
      this.boundTo = boundTo;
      this.thread = thread;
      this.owner = owner;
    }
  }

  private final String name;
  private final ArrayDeque<Waiter> waiters = new ArrayDeque<>(); // guarded by this
  private boolean retired; // guarded by this: the session forgot this queue

  LockQueue(JdbcSession session, String name) {
    super(session);
    this.name = name;
  }

  @Override
  boolean hasWork() {
    return !waiters.isEmpty();
  }

  @Override
  boolean hasWaiters() {
    return !waiters.isEmpty();
  }

  @Override
  long headQueuedNanos() {
    return waiters.peek().queuedNanos;
  }

  @Override
  String yieldKey() {
    return name;
  }

  String name() {
    return name;
  }

  void add(Waiter waiter) {
    boolean added;
    synchronized (this) {
      added = !retired;
      if (added) {
        waiters.add(waiter);
      }
    }
    if (!added) { // the session forgot this queue as it went idle: the name's current queue takes the waiter
      session.queue(name).add(waiter);
      return;
    }
    waiter.future.whenComplete((lease, error) -> {
      if (error != null) {
        remove(waiter);
        if (waiter.uncertain) {
          session.abandon(name, waiter.owner); // an attempt's reply was lost: its grant must not outlive the waiter
        }
      }
    });
    if (session.isClosed()) { // closed while this waiter was on its way in: the close did not see it
      waiter.future.completeExceptionally(new dev.baton.ClientClosedException(session.settings().describe()));
      return;
    }
    wake();
  }

  private void remove(Waiter waiter) {
    synchronized (this) {
      waiters.remove(waiter);
      stopTimerIfEmpty();
    }
    session.forgetIfIdle(this);
  }

  synchronized boolean isIdle() {
    return waiters.isEmpty() && !isChecking();
  }

  /**
   * If idle, marks this queue forgotten and says so: a waiter that reaches it afterwards (its
   * mutex looked the queue up just before) goes to the name's new queue, which releases and
   * notifies wake, rather than wait here unheard.
   */
  synchronized boolean retireIfIdle() {
    retired = isIdle();
    return retired;
  }

  synchronized boolean waiting() {
    return !waiters.isEmpty();
  }

  synchronized List<Waiter> snapshot() {
    return new ArrayList<>(waiters);
  }

  @Override
  void check() {
    Waiter head;
    synchronized (this) {
      while (!waiters.isEmpty() && waiters.peek().future.isDone()) {
        waiters.poll();
      }
      head = waiters.peek();
    }
    if (head == null) {
      finishCheck(-1); // a waiter queued meanwhile has woken this check: it goes again
      return;
    }
    String owner = head.owner;
    long sentAt = System.nanoTime();
    long retryNanos;
    try {
      Dialect.Asker asker = session.asker(name, owner, head.thread);
      Dialect.Attempt attempt = session.run(c -> session.dialect().tryGrant(c, name, asker,
          session.settings().leaseTtl().toNanos() / 1000, head.reserve, session.channel()));
      session.succeeded();
      if (attempt.granted() || attempt.token() != asker.yieldTo()) {
        session.yielded(name, asker.yieldTo());
      }
      if (attempt.granted()) {
        synchronized (this) {
          waiters.remove(head);
        }
        resetBackoff();
        grant(head.future, new JdbcHold(session, name, owner, attempt.token(), sentAt, head.stepsDown()),
            head.boundTo == null ? null : hold -> head.mutex.bind(head.boundTo, hold), head.boundTo != null);
        finishCheck(-1);
        return;
      }
      retryNanos = retryAfterRefusal(
          TimeUnit.MICROSECONDS.toNanos(Math.max(0, attempt.remainingMicros())) + GRACE_NANOS);
    } catch (SQLException | RuntimeException e) {
      log.debug("Trying {} failed: {}", name, e.toString());
      head.uncertain = true;
      session.failed(e);
      retryNanos = retryAfterFailure();
    }
    finishCheck(retryNanos);
  }
}
