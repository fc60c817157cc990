package dev.baton.internal.jdbc;

import dev.baton.internal.lease.ThreadLabels;
import dev.baton.lock.AcquireTimeoutException;
import dev.baton.lock.Lease;
import dev.baton.lock.LockOwner;
import dev.baton.lock.Mutex;
import dev.baton.lock.ReadWriteLock;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * A read-write lock on the read-write lock table: each reader's and writer's lease is a row
 * ({@code R} or {@code W}), and so is the waiter each client is trying for (the head of its line),
 * so that a waiting writer of any client keeps readers that come after it out (readers are granted only while no writer holds or waits; writers
 * only while nobody holds). Every grant draws a new token from the name's counter, so tokens grow
 * along the order of grants: a reader's is larger than every earlier writer's and smaller than
 * every later writer's. Each half is reentrant per thread through its blocking methods; a thread
 * holding the write lock gets the read lock at once, with the write lease's token (a downgrade,
 * checked against the write row in the same transaction).
 */
public final class JdbcReadWriteLock implements ReadWriteLock {
  private final JdbcSession session;
  private final ShareRows rows;
  private final String name;
  private final Half read = new Half('R');
  private final Half write = new Half('W');

  public JdbcReadWriteLock(JdbcSession session, String table, String name) {
    this.session = session;
    this.rows = new ShareRows(session, table);
    this.name = name;
  }

  @Override
  public String path() {
    return name;
  }

  @Override
  public Mutex readLock() {
    return read;
  }

  @Override
  public Mutex writeLock() {
    return write;
  }

  /** Writers wait only for holders; readers also for every waiting writer, of any client. */
  private static ShareRows.Rule rule(char kind) {
    if (kind == 'W') {
      return (others, want) -> others.stream().noneMatch(ShareRows.Live::granted);
    }
    return (others, want) -> others.stream().noneMatch(l -> l.kind() == 'W');
  }

  private List<ShareRows.Live> rows(boolean granted) {
    session.checkOpen();
    try {
      return session.run(c -> rows.live(c, name, false)).stream().filter(l -> l.granted() == granted)
          .collect(Collectors.toList());
    } catch (SQLException e) {
      throw session.error("reading the read-write lock " + name, e);
    }
  }

  private static LockOwner owner(ShareRows.Live l) {
    return new LockOwner(l.owner(), l.token(), l.host(), l.pid(), l.thread(), 0, l.acquiredAt(), false);
  }

  /** The writer, or the readers, holding now (every client's, read from the table), oldest grant first. */
  @Override
  public List<LockOwner> holders() {
    return rows(true).stream().map(JdbcReadWriteLock::owner).collect(Collectors.toList());
  }

  /**
   * The reader or writer each client is trying for now (the head of that client's line, the one
   * registered in the table), in the order they queued; waiters queued behind it in the same client
   * are not listed. Grants between clients race: this is not the order of the grants to come.
   */
  @Override
  public List<LockOwner> waiters() {
    return rows(false).stream().map(JdbcReadWriteLock::owner).collect(Collectors.toList());
  }

  @Override
  public String toString() {
    return "JdbcReadWriteLock[" + name + " on " + session.settings().describe() + "]";
  }

  /** One half: the shared read lock ({@code R}) or the exclusive write lock ({@code W}). */
  private final class Half implements Mutex {
    private final char kind;
    private final ConcurrentHashMap<Thread, JdbcHold> owned = new ConcurrentHashMap<>();

    Half(char kind) {
      this.kind = kind;
    }

    private String words() {
      return (kind == 'W' ? "write" : "read") + " lock " + name;
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

    private void checkTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "timeout");
      if (timeout.isNegative()) {
        throw new IllegalArgumentException("The timeout must not be negative: " + timeout);
      }
    }

    private ShareRows.Request request(String thread) {
      return new ShareRows.Request(session.newOwnerId(), kind, 1,
          new Dialect.Asker("", session.settings().host(), session.pid(), thread));
    }

    private JdbcHold live(Thread thread) {
      JdbcHold hold = owned.get(thread);
      return hold != null && hold.state().isValid() ? hold : null;
    }

    private Optional<Lease> blocking(Duration timeout) {
      session.checkOpen();
      Thread me = Thread.currentThread();
      JdbcHold mine = owned.get(me);
      if (mine != null) {
        if (mine.enter()) {
          return Optional.of(new JdbcLease(mine));
        }
        owned.remove(me, mine);
      }
      if (kind == 'W' && read.live(me) != null) {
        throw new IllegalStateException("Thread '" + me.getName() + "' holds the read lock " + name
            + " and asks for its write lock: it would wait behind its own read lock for ever. Release every"
            + " read lease first, or take the write lock first and downgrade");
      }
      if (kind == 'R') {
        JdbcHold writing = write.live(me);
        if (writing != null) {
          return Optional.of(downgrade(me, writing));
        }
      }
      if (timeout != null && timeout.isZero()) {
        return tryOnce(me);
      }
      ShareQueue.Waiter waiter = new ShareQueue.Waiter(request(ThreadLabels.of(me)), hold -> bind(me, hold));
      enqueue(waiter);
      return JdbcSemaphore.await(waiter.future, timeout, name);
    }

    /** The read lock for the thread holding the write lock: a read row with the write lease's token, if that is still live. */
    private Lease downgrade(Thread me, JdbcHold writing) {
      ShareRows.Request want = request(ThreadLabels.of(me));
      long sentAt = System.nanoTime();
      boolean done;
      try {
        done = session.run(c -> rows.grantBeside(c, name, writing.owner(), writing.token(), want,
            session.settings().leaseTtl().toNanos() / 1000));
        session.succeeded();
      } catch (SQLException e) {
        session.failed(e);
        JdbcSemaphore.abandon(session, rows, name, want.owner());
        throw session.error("downgrading the write lock " + name + " to a read lock", e);
      }
      if (!done) {
        throw new IllegalStateException("The write lease on " + name + " (token " + writing.token()
            + ") is no longer held in the table, so no read lock was taken beside it; acquire the read lock anew");
      }
      JdbcHold hold = new JdbcHold(session, name, rows.key(name), want.owner(), writing.token(), sentAt,
          rows.ops(name, want.owner(), writing.token()));
      hold.start();
      bind(me, hold);
      return new JdbcLease(hold);
    }

    private Optional<Lease> tryOnce(Thread me) {
      ShareRows.Request want = request(ThreadLabels.of(me));
      long sentAt = System.nanoTime();
      try {
        Dialect.Attempt attempt = session.run(c -> rows.tryGrant(c, name, want, rule(kind), List.of(), List.of(), null,
            session.settings().leaseTtl().toNanos() / 1000));
        session.succeeded();
        if (!attempt.granted()) {
          return Optional.empty();
        }
        JdbcHold hold = new JdbcHold(session, name, rows.key(name), want.owner(), attempt.token(), sentAt,
            rows.ops(name, want.owner(), attempt.token()));
        hold.start();
        bind(me, hold);
        return Optional.of(new JdbcLease(hold));
      } catch (SQLException e) {
        session.failed(e);
        JdbcSemaphore.abandon(session, rows, name, want.owner());
        throw session.error("trying the " + words(), e);
      }
    }

    private void bind(Thread thread, JdbcHold hold) {
      owned.put(thread, hold);
      hold.onEnd(() -> owned.remove(thread, hold));
    }

    private void enqueue(ShareQueue.Waiter waiter) {
      // Both halves share one queue per name and client: a writer queued here keeps this client's later readers behind it.
      session.enqueue(rows.key(name), () -> new ShareQueue(session, rows, name,
          (others, want) -> rule(want.kind()).grantable(others, want), true), waiter);
    }

    @Override
    public CompletableFuture<Lease> acquireAsync() {
      session.checkOpen();
      ShareQueue.Waiter waiter = new ShareQueue.Waiter(request(ThreadLabels.of(Thread.currentThread())), null);
      enqueue(waiter);
      return waiter.future;
    }

    @Override
    public CompletableFuture<Lease> acquireAsync(Duration timeout) {
      checkTimeout(timeout);
      return JdbcSemaphore.withDeadline(session, acquireAsync(), timeout, name);
    }

    @Override
    public boolean isHeldByCurrentThread() {
      return live(Thread.currentThread()) != null;
    }

    @Override
    public Optional<LockOwner> holder() {
      return rows(true).stream().filter(l -> l.kind() == kind).findFirst().map(JdbcReadWriteLock::owner);
    }

    @Override
    public List<LockOwner> waiters() {
      return rows(false).stream().filter(l -> l.kind() == kind).map(JdbcReadWriteLock::owner)
          .collect(Collectors.toList());
    }

    @Override
    public String toString() {
      return JdbcReadWriteLock.this + (kind == 'W' ? ".writeLock" : ".readLock");
    }
  }
}
