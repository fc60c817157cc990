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
final class ShareQueue extends CheckQueue {
  private static final Logger log = LoggerFactory.getLogger(ShareQueue.class);

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

  private final ShareRows rows;
  private final String name;
  private final String key;
  private final ShareRows.Rule rule;
  private final boolean registerWaiters;
  private final ArrayDeque<Waiter> waiters = new ArrayDeque<>(); // guarded by this
  /** Owners whose rows must go: waiters that gave up while registered or after an uncertain attempt. */
  private final Set<String> gone = new LinkedHashSet<>(); // guarded by this

  ShareQueue(JdbcSession session, ShareRows rows, String name, ShareRows.Rule rule, boolean registerWaiters) {
    super(session);
    this.rows = rows;
    this.name = name;
    this.key = rows.key(name);
    this.rule = rule;
    this.registerWaiters = registerWaiters;
  }

  String key() {
    return key;
  }

  @Override
  boolean hasWork() {
    return !waiters.isEmpty() || !gone.isEmpty();
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
    return key;
  }

  @Override
  void idle() {
    session.forgetIfIdle(this);
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
    return waiters.isEmpty() && gone.isEmpty() && !isChecking();
  }

  synchronized List<Waiter> snapshot() {
    return new ArrayList<>(waiters);
  }

  @Override
  void check() {
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
    }
    if (head == null && withdraw.isEmpty()) {
      finishCheck(-1); // forgets the queue, unless a waiter queued meanwhile has woken this check
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
            checkAgain();
          }
        }
      }
      if (head != null && attempt.granted()) {
        synchronized (this) {
          waiters.remove(head);
        }
        resetBackoff();
        checkAgain(); // permits or a shared read may be left for the next waiter
        String owner = head.request.owner();
        grant(head.future, new JdbcHold(session, name, key, owner, attempt.token(), sentAt,
            rows.ops(name, owner, attempt.token())), head.onGrant);
        finishCheck(-1);
        return;
      }
      long untilExpiry = TimeUnit.MICROSECONDS.toNanos(Math.max(0, attempt.remainingMicros())) + GRACE_NANOS;
      if (attempt.remainingMicros() <= 0 && head != null) {
        untilExpiry = session.settings().renewEvery().toNanos(); // blocked by nothing that expires: look again soon
      }
      retryNanos = retryAfterRefusal(untilExpiry);
      if (registerWaiters) {
        retryNanos = Math.min(retryNanos, session.settings().renewEvery().toNanos()); // keeps the waiter rows alive
      }
    } catch (SQLException | RuntimeException e) {
      log.debug("Trying {} failed: {}", key, e.toString());
      if (head != null) {
        head.uncertain = true;
      }
      session.failed(e);
      retryNanos = retryAfterFailure();
    }
    finishCheck(retryNanos);
  }
}
