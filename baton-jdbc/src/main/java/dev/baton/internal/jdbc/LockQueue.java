package dev.baton.internal.jdbc;

import dev.baton.lock.Lease;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
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
final class LockQueue {
  private static final Logger log = LoggerFactory.getLogger(LockQueue.class);
  private static final long MIN_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
  private static final long GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

  /** One waiter: completes its future with a lease, on the client's event executor. */
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
    /** An attempt failed without an answer: the row may name this waiter. */
    volatile boolean uncertain;

    Waiter(JdbcMutex mutex, Thread boundTo, String thread, String owner) {
      this.mutex = mutex;
      this.boundTo = boundTo;
      this.thread = thread;
      this.owner = owner;
    }
  }

  private final JdbcSession session;
  private final String name;
  private final ArrayDeque<Waiter> waiters = new ArrayDeque<>(); // guarded by this
  private boolean checking; // guarded by this
  private boolean again; // guarded by this: woken while a check was in flight
  private ScheduledFuture<?> timer; // guarded by this
  private long backoffNanos = MIN_BACKOFF_NANOS; // guarded by this

  LockQueue(JdbcSession session, String name) {
    this.session = session;
    this.name = name;
  }

  String name() {
    return name;
  }

  void add(Waiter waiter) {
    synchronized (this) {
      waiters.add(waiter);
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
      if (waiters.isEmpty() && timer != null) {
        timer.cancel(false);
        timer = null;
      }
    }
    session.forgetIfIdle(this);
  }

  synchronized boolean isIdle() {
    return waiters.isEmpty() && !checking;
  }

  synchronized List<Waiter> snapshot() {
    return new ArrayList<>(waiters);
  }

  /** A lease of this client on the name ended: the next waiter tries at once. */
  void released() {
    synchronized (this) {
      backoffNanos = MIN_BACKOFF_NANOS;
    }
    wake();
  }

  /** Something may have changed (a notify, a release, a timer): check once, now or after the check in flight. */
  void wake() {
    synchronized (this) {
      if (waiters.isEmpty()) {
        return;
      }
      if (checking) {
        again = true;
        return;
      }
      long yieldNanos = session.yieldingNanos(name, waiters.peek().queuedNanos);
      if (yieldNanos > 0) { // this client just released the name: another client's waiter goes first
        if (timer != null) {
          timer.cancel(false);
        }
        try {
          timer = session.timer().schedule(this::wake, yieldNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
          timer = null; // closing
        }
        return;
      }
      checking = true;
      if (timer != null) {
        timer.cancel(false);
        timer = null;
      }
    }
    try {
      session.io(this::check);
    } catch (RejectedExecutionException e) {
      synchronized (this) {
        checking = false;
      }
    }
  }

  private void check() {
    Waiter head;
    synchronized (this) {
      while (!waiters.isEmpty() && waiters.peek().future.isDone()) {
        waiters.poll();
      }
      head = waiters.peek();
      if (head == null) {
        checking = false;
        again = false;
        return;
      }
    }
    String owner = head.owner;
    long sentAt = System.nanoTime();
    long retryNanos;
    try {
      Dialect.Attempt attempt = session.run(c -> session.dialect().tryGrant(c, name,
          new Dialect.Asker(owner, session.settings().host(), session.pid(), head.thread),
          session.settings().leaseTtl().toNanos() / 1000));
      session.succeeded();
      if (attempt.granted()) {
        synchronized (this) {
          waiters.remove(head);
          backoffNanos = MIN_BACKOFF_NANOS;
        }
        grant(head, new JdbcHold(session, name, owner, attempt.token(), sentAt));
        finishCheck(-1);
        return;
      }
      long untilExpiry = TimeUnit.MICROSECONDS.toNanos(Math.max(0, attempt.remainingMicros())) + GRACE_NANOS;
      if (session.listening() && !session.dialect().foreignWriters()) {
        retryNanos = untilExpiry; // a release is heard; an expiry is not
      } else {
        synchronized (this) {
          retryNanos = Math.min(backoffNanos, untilExpiry);
          backoffNanos = Math.min(backoffNanos * 2, session.settings().maxBackoff().toNanos());
        }
      }
    } catch (SQLException | RuntimeException e) {
      log.debug("Trying {} failed: {}", name, e.toString());
      head.uncertain = true;
      session.failed(e);
      synchronized (this) {
        retryNanos = backoffNanos;
        backoffNanos = Math.min(backoffNanos * 2, session.settings().maxBackoff().toNanos());
      }
    }
    finishCheck(retryNanos);
  }

  private void grant(Waiter waiter, JdbcHold hold) {
    hold.start();
    JdbcLease lease = new JdbcLease(hold);
    try {
      session.events().execute(() -> {
        if (waiter.boundTo != null) {
          waiter.mutex.bind(waiter.boundTo, hold);
        }
        if (!waiter.future.complete(lease)) {
          hold.release(); // the waiter gave up (timeout, cancel) while the grant was on its way
        }
      });
    } catch (RejectedExecutionException e) {
      hold.release();
    }
  }

  /** Ends the check; checks again at once if woken meanwhile, else after {@code retryNanos} (never if negative). */
  private void finishCheck(long retryNanos) {
    boolean now;
    synchronized (this) {
      checking = false;
      now = again && !waiters.isEmpty();
      again = false;
      if (!now && retryNanos >= 0 && !waiters.isEmpty()) {
        try {
          timer = session.timer().schedule(this::wake, retryNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
          // closing
        }
      }
    }
    if (now) {
      wake();
    }
  }
}
