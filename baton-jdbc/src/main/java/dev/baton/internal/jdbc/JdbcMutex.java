package dev.baton.internal.jdbc;

import dev.baton.BatonException;
import dev.baton.BatonInterruptedException;
import dev.baton.internal.lease.ThreadLabels;
import dev.baton.lock.AcquireTimeoutException;
import dev.baton.lock.Lease;
import dev.baton.lock.LockOwner;
import dev.baton.lock.Mutex;
import dev.baton.lock.MutexOptions;
import dev.baton.FencingTokens;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * A mutex on one row of the lock table: reentrant per thread for blocking acquires (levels are
 * counted here, the row is taken once), queued in this client's {@link LockQueue} for the name.
 */
public final class JdbcMutex implements Mutex {
  private final JdbcSession session;
  private final String name;
  private final ConcurrentHashMap<Thread, JdbcHold> owned = new ConcurrentHashMap<>();
  /** With local hand-over or caching: the threads' tenures, and the cohort that serves them. */
  private final ConcurrentHashMap<Thread, JdbcTenure> tenures = new ConcurrentHashMap<>();
  private final JdbcCohort cohort;

  public JdbcMutex(JdbcSession session, String name) {
    this(session, name, MutexOptions.defaults());
  }

  /**
   * A mutex with {@code options}; local hand-over and caching need a layout that reserves tokens
   * ({@link Dialect#reservesTokens()}), which the caller checks.
   */
  public JdbcMutex(JdbcSession session, String name, MutexOptions options) {
    this.session = session;
    this.name = name;
    this.cohort = options.sharesNode() ? new JdbcCohort(this, session, options) : null;
  }

  @Override
  public String path() {
    return name;
  }

  @Override
  public Lease acquire() {
    return blocking(null).orElseThrow();
  }

  @Override
  public Lease acquire(Duration timeout) {
    checkTimeout(timeout);
    return blocking(timeout).orElseThrow(() -> new AcquireTimeoutException(name, timeout));
  }

  @Override
  public Optional<Lease> tryAcquire(Duration timeout) {
    checkTimeout(timeout);
    return blocking(timeout);
  }

  private static void checkTimeout(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative()) {
      throw new IllegalArgumentException("The timeout must not be negative: " + timeout);
    }
  }

  private Optional<Lease> blocking(Duration timeout) {
    session.checkOpen();
    Thread me = Thread.currentThread();
    if (cohort != null) {
      return blockingInCohort(me, timeout);
    }
    JdbcHold mine = owned.get(me);
    if (mine != null) {
      if (mine.enter()) {
        return Optional.of(new JdbcLease(mine));
      }
      owned.remove(me, mine);
    }
    if (timeout != null && timeout.isZero()) {
      return tryOnce(me);
    }
    LockQueue.Waiter waiter = new LockQueue.Waiter(this, me, ThreadLabels.of(me), session.newOwnerId());
    session.queue(name).add(waiter);
    return await(waiter.future, timeout);
  }

  private Optional<Lease> blockingInCohort(Thread me, Duration timeout) {
    JdbcTenure mine = tenures.get(me);
    if (mine != null) {
      if (mine.enter()) {
        return Optional.of(new JdbcLease(mine));
      }
      tenures.remove(me, mine);
    }
    JdbcCohort.LocalWaiter waiter = new JdbcCohort.LocalWaiter(me, ThreadLabels.of(me));
    if (timeout != null && timeout.isZero()) {
      return Optional.ofNullable(cohort.tryOnce(waiter, () -> grantOnce(me, FencingTokens.PER_NODE)
          .map(JdbcLease::hold).orElse(null)));
    }
    return await(cohort.acquire(waiter), timeout);
  }

  private Optional<Lease> await(CompletableFuture<Lease> future, Duration timeout) {
    try {
      Lease lease = timeout == null ? future.get() : future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
      return Optional.of(lease);
    } catch (TimeoutException e) {
      if (future.cancel(false) || future.isCompletedExceptionally()) {
        return Optional.empty();
      }
      return Optional.of(future.join()); // granted just as the time ran out
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      if (!future.cancel(false) && !future.isCompletedExceptionally()) {
        future.join().close(); // granted just as the wait was interrupted: give it back
      }
      throw new BatonInterruptedException("Interrupted while waiting for " + name, e);
    } catch (ExecutionException e) {
      throw unwrap(e.getCause());
    }
  }

  private Optional<Lease> tryOnce(Thread me) {
    return grantOnce(me, 1).<Lease>map(lease -> {
      bind(me, lease.hold());
      return lease;
    });
  }

  /**
   * One grant statement, tried a second time (as a new asker) when the first failed on its
   * connection: a pooled connection to a database that restarted fails once, and the pool drops
   * it. The first attempt's outcome is unknown, so its row is freed should it be ours, as before.
   * It does not yield to another client after a wanted release as the queue's attempts do: a
   * {@code tryAcquire(0)} loop would be refused for the whole moment whenever its own attempt, sent
   * while its release was in flight, had marked the row wanted.
   */
  private Optional<JdbcLease> grantOnce(Thread me, long reserve) {
    for (int attempt = 1; ; attempt++) {
      String owner = reserve == 1 ? session.newOwnerId() : session.newCachingOwnerId();
      long sentAt = System.nanoTime();
      try {
        Dialect.Attempt granted = session.run(c -> session.dialect().tryGrant(c, name,
            new Dialect.Asker(owner, session.settings().host(), session.pid(), ThreadLabels.of(me)),
            session.settings().leaseTtl().toNanos() / 1000, reserve, session.channel()));
        session.succeeded();
        if (!granted.granted()) {
          return Optional.empty();
        }
        JdbcHold hold = new JdbcHold(session, name, owner, granted.token(), sentAt);
        hold.start();
        return Optional.of(new JdbcLease(hold));
      } catch (SQLException e) {
        session.abandon(name, owner); // the attempt's outcome is unknown: free the row should it be ours
        if (attempt == 1 && isConnectionFailure(e)) {
          continue;
        }
        session.failed(e);
        throw session.error("trying " + name, e);
      }
    }
  }

  /** A failure of the connection itself (SQL state class 08), which another connection may not have. */
  private static boolean isConnectionFailure(SQLException e) {
    return e instanceof java.sql.SQLTransientConnectionException || e instanceof java.sql.SQLNonTransientConnectionException
        || e instanceof java.sql.SQLRecoverableException || e.getSQLState() != null && e.getSQLState().startsWith("08");
  }

  private static RuntimeException unwrap(Throwable cause) {
    if (cause instanceof RuntimeException r) {
      return r;
    }
    return new BatonException(String.valueOf(cause), cause);
  }

  /** Binds {@code tenure} to {@code thread} for reentrancy, until it ends ({@link #unbind}). */
  void bind(Thread thread, JdbcTenure tenure) {
    tenures.put(thread, tenure);
  }

  void unbind(Thread thread, JdbcTenure tenure) {
    tenures.remove(thread, tenure);
  }

  /** Binds {@code hold} to {@code thread} for reentrancy, until it ends. */
  void bind(Thread thread, JdbcHold hold) {
    owned.put(thread, hold);
    hold.onEnd(() -> owned.remove(thread, hold));
  }

  @Override
  public CompletableFuture<Lease> acquireAsync() {
    return acquireAsync(ThreadLabels.of(Thread.currentThread()));
  }

  /** As {@link #acquireAsync()}, with {@code label} in the row's thread column (a leader latch's participant id). */
  CompletableFuture<Lease> acquireAsync(String label) {
    session.checkOpen();
    if (cohort != null) {
      return cohort.acquire(new JdbcCohort.LocalWaiter(null, label));
    }
    LockQueue.Waiter waiter = new LockQueue.Waiter(this, null, label, session.newOwnerId());
    session.queue(name).add(waiter);
    return waiter.future;
  }

  @Override
  public CompletableFuture<Lease> acquireAsync(Duration timeout) {
    checkTimeout(timeout);
    CompletableFuture<Lease> future = acquireAsync();
    var deadline = session.timer().schedule(
        () -> future.completeExceptionally(new AcquireTimeoutException(name, timeout)),
        timeout.toNanos(), TimeUnit.NANOSECONDS);
    future.whenComplete((lease, error) -> deadline.cancel(false));
    return future;
  }

  @Override
  public boolean isHeldByCurrentThread() {
    JdbcTenure tenure = tenures.get(Thread.currentThread());
    if (tenure != null) {
      return tenure.state().isValid();
    }
    JdbcHold hold = owned.get(Thread.currentThread());
    return hold != null && hold.state().isValid();
  }

  @Override
  public Optional<LockOwner> holder() {
    session.checkOpen();
    try {
      return session.run(c -> session.dialect().read(c, name))
          .filter(Dialect.Row::live)
          .map(r -> new LockOwner(r.owner(), cohort == null ? r.token() : cohort.shownToken(r.owner(), r.token()),
              r.host(), r.pid(), r.thread(), 0, r.acquiredAt(),
              cohort != null && cohort.cachedAs(r.owner())));
    } catch (SQLException e) {
      throw session.error("reading the holder of " + name, e);
    }
  }

  /**
   * This client's waiters on the name, in the order they will try: the database keeps no queue,
   * so waiters of other clients are not listed.
   */
  @Override
  public List<LockOwner> waiters() {
    LockQueue queue = session.existingQueue(name);
    if (queue == null) {
      return List.of();
    }
    return queue.snapshot().stream()
        .map(w -> new LockOwner("", 0, session.settings().host(), session.pid(), w.thread, 0, w.queuedAt, false))
        .collect(Collectors.toList());
  }

  @Override
  public String toString() {
    return "JdbcMutex[" + name + " on " + session.settings().describe() + "]";
  }

  static boolean isCancel(Throwable t) {
    return t instanceof CancellationException;
  }
}
