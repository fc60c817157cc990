package dev.baton.internal.jdbc;

import dev.baton.lock.Lease;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This client's waiters on one name of a shared-lease table (semaphore, read-write lock), in
 * arrival order, sharing one check as {@link LockQueue} does for the mutex: at most one attempt in
 * flight per name, for the head waiter, so a head asking for more permits than are free keeps the
 * waiters behind it waiting (no barging within a client). After a grant the next waiter tries at
 * once, since permits or a shared read may be left for it. Retries come on a release heard (this
 * client's, or PostgreSQL's notify), at the latest when the blocking rows would expire, and at
 * least every renewal period when waiters are registered in the table, since each check also
 * extends their rows (a waiter row of a client that died expires like a lease).
 */
final class ShareQueue {
  private static final Logger log = LoggerFactory.getLogger(ShareQueue.class);
  private static final long MIN_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
  private static final long GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

  /** One waiter: completes its future with a lease, on the client's event executor. */
  static final class Waiter {
    final CompletableFuture<Lease> future = new CompletableFuture<>();
    final ShareRows.Request request;
    final Instant queuedAt = Instant.now();
    final long queuedNanos = System.nanoTime();
    /** Run on the event thread before the future completes: binds the hold to a thread for reentrancy. */
    final Consumer<JdbcHold> onGrant;
    /** An attempt failed without an answer: a row may name this waiter. */
    volatile boolean uncertain;
    /** Its waiter row is in the table (guarded by the queue). */
    boolean registered;

    Waiter(ShareRows.Request request, Consumer<JdbcHold> onGrant) {
      this.request = request;
      this.onGrant = onGrant;
    }
  }

  private final JdbcSession session;
  private final ShareRows rows;
  private final String name;
  private final String key;
  private final ShareRows.Rule rule;
  private final boolean registerWaiters;
  private final ArrayDeque<Waiter> waiters = new ArrayDeque<>(); // guarded by this
  /** Owners whose rows must go: waiters that gave up while registered or after an uncertain attempt. */
  private final Set<String> gone = new LinkedHashSet<>(); // guarded by this
  private boolean checking; // guarded by this
  private boolean again; // guarded by this
  private ScheduledFuture<?> timer; // guarded by this
  private long backoffNanos = MIN_BACKOFF_NANOS; // guarded by this

  ShareQueue(JdbcSession session, ShareRows rows, String name, ShareRows.Rule rule, boolean registerWaiters) {
    this.session = session;
    this.rows = rows;
    this.name = name;
    this.key = rows.key(name);
    this.rule = rule;
    this.registerWaiters = registerWaiters;
  }

  String key() {
    return key;
  }

  /** Puts {@code waiter} in line; called by the session inside its map's compute, so the queue cannot be forgotten meanwhile. */
  synchronized void enqueue(Waiter waiter) {
    waiters.add(waiter);
  }

  /** After {@link #enqueue}: watches the waiter's future and starts a check. */
  void start(Waiter waiter) {
    waiter.future.whenComplete((lease, error) -> {
      if (error != null) {
        synchronized (this) {
          waiters.remove(waiter);
          if (waiter.registered || waiter.uncertain) {
            gone.add(waiter.request.owner());
          }
        }
        wake(); // withdraws its row; a check with nothing to do forgets the queue
      }
    });
    if (session.isClosed()) {
      waiter.future.completeExceptionally(new dev.baton.ClientClosedException(session.settings().describe()));
      return;
    }
    wake();
  }

  synchronized boolean isIdle() {
    return waiters.isEmpty() && gone.isEmpty() && !checking;
  }

  synchronized List<Waiter> snapshot() {
    return new ArrayList<>(waiters);
  }

  void released() {
    synchronized (this) {
      backoffNanos = MIN_BACKOFF_NANOS;
    }
    wake();
  }

  void wake() {
    boolean idle;
    synchronized (this) {
      idle = waiters.isEmpty() && gone.isEmpty();
    }
    if (idle) {
      session.forgetIfIdle(this); // outside this queue's lock: the session's map locks first, then the queue
      return;
    }
    synchronized (this) {
      if (waiters.isEmpty() && gone.isEmpty()) {
        return;
      }
      if (checking) {
        again = true;
        return;
      }
      Waiter head = waiters.peek();
      long yieldNanos = head == null ? 0 : session.yieldingNanos(key, head.queuedNanos);
      if (yieldNanos > 0) { // this client just released: another client's waiter goes first
        if (timer != null) {
          timer.cancel(false);
        }
        try {
          timer = session.timer().schedule(this::wake, yieldNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
          timer = null;
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
    List<Waiter> toRegister = new ArrayList<>();
    List<String> withdraw;
    synchronized (this) {
      waiters.removeIf(w -> w.future.isDone());
      head = waiters.peek();
      // Only the head is registered: a registered writer keeps every client's readers out, so it must
      // be one that is trying. A writer registered behind this client's own waiting reader would keep
      // another client's head reader out while that client's writer does the same to this reader.
      if (registerWaiters && head != null && !head.registered) {
        toRegister.add(head);
      }
      withdraw = new ArrayList<>(gone);
      if (head == null && withdraw.isEmpty()) {
        checking = false;
        again = false;
      }
    }
    if (head == null && withdraw.isEmpty()) {
      session.forgetIfIdle(this);
      return;
    }
    long sentAt = System.nanoTime();
    long ttlMicros = session.settings().leaseTtl().toNanos() / 1000;
    long retryNanos;
    try {
      List<ShareRows.Request> register = toRegister.stream().map(w -> w.request).toList();
      String refresh = registerWaiters ? session.clientId() + "-%" : null;
      Dialect.Attempt attempt = session.run(c -> rows.tryGrant(c, name, head == null ? null : head.request, rule,
          register, withdraw, refresh, ttlMicros));
      session.succeeded();
      synchronized (this) {
        gone.removeAll(withdraw);
        for (Waiter w : toRegister) {
          w.registered = true;
          if (w.future.isDone() && !(attempt.granted() && w == head)) {
            gone.add(w.request.owner()); // gave up while its row was being written
            again = true;
          }
        }
      }
      if (head != null && attempt.granted()) {
        synchronized (this) {
          waiters.remove(head);
          backoffNanos = MIN_BACKOFF_NANOS;
          again = true; // permits or a shared read may be left for the next waiter
        }
        String owner = head.request.owner();
        grant(head, new JdbcHold(session, name, key, owner, attempt.token(), sentAt, rows.ops(name, owner, attempt.token())));
        finishCheck(-1);
        return;
      }
      long untilExpiry = TimeUnit.MICROSECONDS.toNanos(Math.max(0, attempt.remainingMicros())) + GRACE_NANOS;
      if (attempt.remainingMicros() <= 0 && head != null) {
        untilExpiry = session.settings().renewEvery().toNanos(); // blocked by nothing that expires: look again soon
      }
      if (session.listening()) {
        retryNanos = untilExpiry; // a release is heard; an expiry is not
      } else {
        synchronized (this) {
          retryNanos = Math.min(backoffNanos, untilExpiry);
          backoffNanos = Math.min(backoffNanos * 2, session.settings().maxBackoff().toNanos());
        }
      }
      if (registerWaiters) {
        retryNanos = Math.min(retryNanos, session.settings().renewEvery().toNanos()); // keeps the waiter rows alive
      }
    } catch (SQLException | RuntimeException e) {
      log.debug("Trying {} failed: {}", key, e.toString());
      if (head != null) {
        head.uncertain = true;
      }
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
        if (waiter.onGrant != null) {
          waiter.onGrant.accept(hold);
        }
        if (!waiter.future.complete(lease)) {
          hold.release(); // the waiter gave up while the grant was on its way
        }
      });
    } catch (RejectedExecutionException e) {
      hold.release();
    }
  }

  private void finishCheck(long retryNanos) {
    boolean now;
    synchronized (this) {
      checking = false;
      now = again && (!waiters.isEmpty() || !gone.isEmpty());
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
    } else {
      session.forgetIfIdle(this);
    }
  }
}
