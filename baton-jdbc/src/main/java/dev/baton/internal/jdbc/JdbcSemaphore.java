package dev.baton.internal.jdbc;

import dev.baton.BatonException;
import dev.baton.BatonInterruptedException;
import dev.baton.internal.lease.ThreadLabels;
import dev.baton.lock.AcquireTimeoutException;
import dev.baton.lock.Lease;
import dev.baton.lock.LockOwner;
import dev.baton.lock.Semaphore;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A counting semaphore on the semaphore table: each lease is one row carrying its number of
 * permits, granted in a transaction that locks the name's header row and counts the live permits,
 * so a set of permits is taken all at once or not at all. Not reentrant and bound to no thread, as
 * {@link Semaphore} says. Clients must agree on the number of permits: it is not stored.
 */
public final class JdbcSemaphore implements Semaphore {
  private final JdbcSession session;
  private final ShareRows rows;
  private final String name;
  private final int permits;

  public JdbcSemaphore(JdbcSession session, String table, String name, int permits) {
    this.session = session;
    this.rows = new ShareRows(session, table);
    this.name = name;
    this.permits = permits;
  }

  @Override
  public String path() {
    return name;
  }

  @Override
  public int permits() {
    return permits;
  }

  private ShareRows.Rule rule() {
    int limit = permits;
    return (others, want) -> others.stream().filter(ShareRows.Live::granted).mapToInt(ShareRows.Live::permits).sum()
        + want.permits() <= limit;
  }

  @Override
  public Lease acquire() {
    return blocking(1, null).orElseThrow();
  }

  @Override
  public Lease acquire(Duration timeout) {
    return acquire(1, timeout);
  }

  @Override
  public Optional<Lease> tryAcquire(Duration timeout) {
    return tryAcquire(1, timeout);
  }

  @Override
  public Lease acquire(int count, Duration timeout) {
    return tryAcquire(count, timeout).orElseThrow(() -> new AcquireTimeoutException(name, timeout));
  }

  @Override
  public Optional<Lease> tryAcquire(int count, Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative()) {
      throw new IllegalArgumentException("The timeout must not be negative: " + timeout);
    }
    return blocking(count, timeout);
  }

  private void checkCount(int count) {
    if (count < 1 || count > permits) {
      throw new IllegalArgumentException("Asked for " + count + " permits of the semaphore " + name
          + ", which has " + permits + " permits: ask for 1 to " + permits);
    }
  }

  private ShareRows.Request request(int count, String thread) {
    return new ShareRows.Request(session.newOwnerId(), 'S', count,
        new Dialect.Asker("", session.settings().host(), session.pid(), thread));
  }

  private Optional<Lease> blocking(int count, Duration timeout) {
    checkCount(count);
    session.checkOpen();
    if (timeout != null && timeout.isZero()) {
      return tryOnce(count);
    }
    ShareQueue.Waiter waiter = new ShareQueue.Waiter(request(count, ThreadLabels.of(Thread.currentThread())), null);
    enqueue(waiter);
    return await(waiter.future, timeout, name);
  }

  /** Waits for a queued waiter's lease; a timeout or interrupt withdraws it (giving back a grant that came just then). */
  static Optional<Lease> await(CompletableFuture<Lease> future, Duration timeout, String name) {
    try {
      return Optional.of(timeout == null ? future.get() : future.get(timeout.toNanos(), TimeUnit.NANOSECONDS));
    } catch (TimeoutException e) {
      if (future.cancel(false) || future.isCompletedExceptionally()) {
        return Optional.empty();
      }
      return Optional.of(future.join()); // granted just as the time ran out
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      if (!future.cancel(false) && !future.isCompletedExceptionally()) {
        future.join().close();
      }
      throw new BatonInterruptedException("Interrupted while waiting for " + name, e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new BatonException(String.valueOf(e.getCause()), e.getCause());
    }
  }

  private void enqueue(ShareQueue.Waiter waiter) {
    session.enqueue(rows.key(name), () -> new ShareQueue(session, rows, name, rule(), false), waiter);
  }

  private Optional<Lease> tryOnce(int count) {
    ShareRows.Request want = request(count, ThreadLabels.of(Thread.currentThread()));
    long sentAt = System.nanoTime();
    try {
      Dialect.Attempt attempt = session.run(c -> rows.tryGrant(c, name, want, rule(), List.of(), List.of(), null,
          session.settings().leaseTtl().toNanos() / 1000));
      session.succeeded();
      if (!attempt.granted()) {
        return Optional.empty();
      }
      JdbcHold hold = new JdbcHold(session, name, rows.key(name), want.owner(), attempt.token(), sentAt,
          rows.ops(name, want.owner(), attempt.token()));
      hold.start();
      return Optional.of(new JdbcLease(hold));
    } catch (SQLException e) {
      session.failed(e);
      abandon(session, rows, name, want.owner()); // the attempt's outcome is unknown: free the row should it be ours
      throw session.error("trying the semaphore " + name, e);
    }
  }

  /** Deletes the rows of {@code owner} in the background (retried once); they expire with their TTL otherwise. */
  static void abandon(JdbcSession session, ShareRows rows, String name, String owner) {
    Runnable attempt = () -> {
      for (int i = 0; i < 2; i++) {
        try {
          session.run(c -> {
            rows.abandon(c, name, owner);
            return null;
          });
          return;
        } catch (SQLException | RuntimeException e) {
          // tried again once, then left to expire
        }
      }
    };
    try {
      session.io(attempt);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      attempt.run();
    }
  }

  @Override
  public CompletableFuture<Lease> acquireAsync() {
    session.checkOpen();
    ShareQueue.Waiter waiter = new ShareQueue.Waiter(request(1, ThreadLabels.of(Thread.currentThread())), null);
    enqueue(waiter);
    return waiter.future;
  }

  @Override
  public CompletableFuture<Lease> acquireAsync(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative()) {
      throw new IllegalArgumentException("The timeout must not be negative: " + timeout);
    }
    return withDeadline(session, acquireAsync(), timeout, name);
  }

  static CompletableFuture<Lease> withDeadline(JdbcSession session, CompletableFuture<Lease> future, Duration timeout,
      String name) {
    var deadline = session.timer().schedule(() -> future.completeExceptionally(new AcquireTimeoutException(name, timeout)),
        timeout.toNanos(), TimeUnit.NANOSECONDS);
    future.whenComplete((lease, error) -> deadline.cancel(false));
    return future;
  }

  /** One entry per permit held, oldest grant first; read from the table (every client's). */
  @Override
  public List<LockOwner> holders() {
    session.checkOpen();
    try {
      List<LockOwner> out = new ArrayList<>();
      for (ShareRows.Live l : session.run(c -> rows.live(c, name, true))) {
        for (int i = 0; i < l.permits(); i++) {
          out.add(new LockOwner(l.owner(), l.token(), l.host(), l.pid(), l.thread(), 0, l.acquiredAt(), false));
        }
      }
      return out;
    } catch (SQLException e) {
      throw session.error("reading the holders of the semaphore " + name, e);
    }
  }

  @Override
  public String toString() {
    return "JdbcSemaphore[" + name + ", " + permits + " permits, on " + session.settings().describe() + "]";
  }
}
