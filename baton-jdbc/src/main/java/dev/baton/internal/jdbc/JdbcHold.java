package dev.baton.internal.jdbc;

import dev.baton.internal.lease.Holding;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseListener;
import dev.baton.lock.LeaseState;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lock row this client holds: one grant, one token, any number of reentrant levels. It renews
 * the row every renewal period and judges the lease by the answer: a renewal that fails (no
 * connection, a timeout) makes it {@code SUSPECT}; one that finds the row expired, freed or another
 * owner's makes it {@code LOST}, and so does reaching {@link #validUntilNanos()} (the send time of
 * the last renewal that succeeded, plus the TTL, less the drift margin; never later than the row's
 * expiry, which the database computes from its clock when the statement runs, after it was sent).
 */
public final class JdbcHold implements Holding {
  private static final Logger log = LoggerFactory.getLogger(JdbcHold.class);

  private final JdbcSession session;
  private final String name;
  private final String queueKey;
  private final RowOps ops;
  private final String owner;
  private final long token;
  private final long validNanos;
  /** A leader's hold: its release is a step-down, after which this client always yields the name. */
  private final boolean stepDown;
  /**
   * A mutex's row that says whether another asker wanted it ({@link Dialect.Released#wanted()}):
   * after such a release this client yields until another asker has the row, judged by the grant
   * ({@link Dialect.Asker#yieldTo()}); other holds yield for a fixed moment after every release.
   */
  private final boolean yieldsByRow;
  private final AtomicInteger levels = new AtomicInteger(1);
  private final AtomicBoolean renewing = new AtomicBoolean();
  private final List<Registered> listeners = new CopyOnWriteArrayList<>();
  private final ArrayDeque<LeaseState> announcements = new ArrayDeque<>(); // guarded by this
  private boolean announcing; // guarded by this
  private LeaseState state = LeaseState.HELD; // guarded by this
  private volatile long lastRenewedAt;
  private volatile ScheduledFuture<?> renewal;
  private volatile ScheduledFuture<?> expiry;
  /** Where the mutex forgets this hold's thread binding once it is over. */
  private volatile Runnable onEnd = () -> {};

  /** The statements on the row (or rows) a hold keeps: the lock table's for a mutex, another table's for other recipes. */
  interface RowOps {
    /** Extends the row while it still names this grant and has not expired; false if it does not. */
    boolean renew(Connection c, long ttlMicros) throws SQLException;

    /**
     * Frees the row if it still names this grant, waking waiters where the database can; true if
     * another client may want it (this client then lets it in first), false if it cannot.
     */
    boolean free(Connection c) throws SQLException;

    /** In the caller's transaction: whether the row still names this grant, share-locked until it ends. */
    boolean lockIfHeld(Connection c) throws SQLException;
  }

  JdbcHold(JdbcSession session, String name, String owner, long token, long sentAt) {
    this(session, name, owner, token, sentAt, false);
  }

  /** A mutex's hold; {@code stepDown}: a leader's, whose release always lets another client in first. */
  JdbcHold(JdbcSession session, String name, String owner, long token, long sentAt, boolean stepDown) {
    this(session, name, name, owner, token, sentAt, null, stepDown);
  }

  /**
   * A hold whose row {@code ops} renews and frees, and whose end wakes the queue {@code queueKey} of
   * this client ({@code name} for a mutex, a key of its own for other recipes).
   */
  JdbcHold(JdbcSession session, String name, String queueKey, String owner, long token, long sentAt, RowOps ops) {
    this(session, name, queueKey, owner, token, sentAt, ops, false);
  }

  private JdbcHold(JdbcSession session, String name, String queueKey, String owner, long token, long sentAt,
      RowOps ops, boolean stepDown) {
    this.session = session;
    this.stepDown = stepDown;
    this.name = name;
    this.queueKey = queueKey;
    this.ops = ops != null ? ops : mutexRow(session, name, owner, token);
    this.yieldsByRow = ops == null && !stepDown && session.dialect().family() != null;
    this.owner = owner;
    this.token = token;
    this.validNanos = session.settings().leaseTtl().toNanos() - session.settings().driftMargin().toNanos();
    this.lastRenewedAt = sentAt;
  }

  private static RowOps mutexRow(JdbcSession session, String name, String owner, long token) {
    return new RowOps() {
      @Override
      public boolean renew(Connection c, long ttlMicros) throws SQLException {
        return session.dialect().renew(c, name, owner, token, ttlMicros);
      }

      @Override
      public boolean free(Connection c) throws SQLException {
        return session.dialect().release(c, name, owner, token, session.channel(), session.notifyPayload(name))
            .wanted();
      }

      @Override
      public boolean lockIfHeld(Connection c) throws SQLException {
        return session.dialect().lockIfHeld(c, name, owner, token);
      }
    };
  }

  /** In the caller's transaction: whether this hold's row still names it, share-locked until the transaction ends. */
  public boolean lockIfHeld(Connection c) throws SQLException {
    return ops.lockIfHeld(c);
  }

  void start() {
    if (yieldsByRow) {
      session.holdStarted(queueKey);
    }
    session.register(this);
    scheduleExpiryCheck();
    scheduleRenewal(session.settings().renewEvery().toNanos());
  }

  void onEnd(Runnable r) {
    this.onEnd = r;
  }

  public String owner() {
    return owner;
  }

  public String name() {
    return name;
  }

  public JdbcSession session() {
    return session;
  }

  /** One more reentrant level, if the hold is still usable. */
  boolean enter() {
    if (isFinal()) {
      return false;
    }
    while (true) {
      int n = levels.get();
      if (n <= 0) {
        return false;
      }
      if (levels.compareAndSet(n, n + 1)) {
        return true;
      }
    }
  }

  @Override
  public String path() {
    return name;
  }

  @Override
  public long token() {
    return token;
  }

  @Override
  public LeaseState state() {
    checkExpiry();
    synchronized (this) {
      return state;
    }
  }

  long validUntilNanos() {
    return lastRenewedAt + validNanos;
  }

  @Override
  public Instant validUntil() {
    synchronized (this) {
      if (state == LeaseState.LOST || state == LeaseState.RELEASED) {
        return Instant.now().minusNanos(1);
      }
    }
    return Instant.now().plusNanos(validUntilNanos() - System.nanoTime());
  }

  @Override
  public void addListener(Lease lease, LeaseListener listener, Executor executor) {
    listen(lease, listener, executor);
  }

  /** As {@link #addListener}, returning the registration that {@link #unlisten} takes back (a tenure's, whose end comes before the hold's). */
  Object listen(Lease lease, LeaseListener listener, Executor executor) {
    Registered registered = new Registered(lease, listener, executor);
    listeners.add(registered);
    return registered;
  }

  /** Stops telling a registration of {@link #listen}; then tells it RELEASED, its last change. */
  void unlistenReleased(Object registration) {
    if (listeners.removeIf(r -> r == registration)) {
      ((Registered) registration).tell(LeaseState.RELEASED);
    }
  }

  @Override
  public Executor defaultExecutor() {
    return session.notices();
  }

  @Override
  public void exit() {
    if (levels.decrementAndGet() == 0) {
      release();
    }
  }

  /** The client cannot reach the database: nothing should be decided on this lease until a renewal succeeds. */
  void suspect() {
    if (moveTo(LeaseState.SUSPECT, LeaseState.HELD)) {
      scheduleRenewal(0);
    }
  }

  /**
   * Frees the row (if it still names this grant), then lets this client's next waiter try: at once
   * if no other client asked for the row meanwhile; else a mutex's waiter yields until another
   * client has taken the row ({@link JdbcSession#releaseAnswered}), and other holds' waiters wait a
   * moment that lets the other client in ({@link JdbcSession#yieldAfterRelease}); a leader stepping
   * down always waits that moment.
   */
  void release() {
    levels.set(0);
    if (isFinal()) {
      return;
    }
    if (yieldsByRow) {
      // Until the release is answered, this client's attempts on the name still wait (holdStarted).
      if (!moveTo(LeaseState.RELEASED, LeaseState.HELD, LeaseState.SUSPECT)) {
        return; // lost meanwhile: the loss ended the hold and woke the queue
      }
      end();
      background(() -> {
        boolean waiting = session.waiting(queueKey);
        Dialect.Released released = freeMutexRow(waiting);
        session.releaseAnswered(queueKey, token, released.wanted());
        if (waiting && released.freed() && released.wanted()) {
          session.releasedYielding(queueKey); // marked: an attempt now would only be refused, and hold up the others'
        } else {
          session.released(queueKey);
        }
      });
      return;
    }
    // Before RELEASED is told: a leader latch told so joins again at once, on another thread, and
    // its waiter must find the name yielded. Until the release's answer says whether another client
    // wants the row, this client's waiters that queue from now on must not take it back.
    yieldAfterRelease();
    if (!moveTo(LeaseState.RELEASED, LeaseState.HELD, LeaseState.SUSPECT)) {
      return; // lost meanwhile: the yield just set lapses on its own
    }
    end();
    background(() -> {
      boolean wanted = freeRow();
      if (wanted || stepDown) {
        yieldAfterRelease(); // counted from when other clients hear the row is free
      } else {
        session.stopYielding(queueKey);
      }
      session.released(queueKey);
    });
  }

  private void yieldAfterRelease() {
    if (stepDown) {
      session.yieldAfterStepDown(queueKey);
    } else {
      session.yieldAfterRelease(queueKey);
    }
  }

  /** Runs {@code task} on the client's statement threads; once the client has closed them, not at all (the close freed the row). */
  private void background(Runnable task) {
    try {
      session.io(task);
    } catch (RejectedExecutionException e) {
      log.debug("{} not freed in the background: the client is closed", name);
    }
  }

  /** As {@link #release()}, on the calling thread: the client is closing. */
  void releaseNow() {
    levels.set(0);
    if (moveTo(LeaseState.RELEASED, LeaseState.HELD, LeaseState.SUSPECT)) {
      end();
      freeRow();
      if (yieldsByRow) {
        session.holdEnded(queueKey);
      }
    }
  }

  /** Frees the row; true if another client may want it (or the answer was lost). */
  private boolean freeRow() {
    return freeing(ops::free, true);
  }

  /** Frees a mutex's row, marking it {@link Dialect#YIELDING} if wanted and {@code waiting}; unknown if the answer was lost. */
  private Dialect.Released freeMutexRow(boolean waiting) {
    return freeing(c -> session.dialect().release(c, name, owner, token, session.channel(),
        session.notifyPayload(name), waiting), new Dialect.Released(false, true));
  }

  private <T> T freeing(JdbcSession.SqlFn<T> free, T unknown) {
    try {
      return session.run(free);
    } catch (SQLException | RuntimeException e) {
      log.debug("Could not free the row of {}; it expires with its TTL", name, e);
      return unknown;
    }
  }

  private void end() {
    stopTimers();
    session.unregister(this);
    onEnd.run();
  }

  private void scheduleRenewal(long delayNanos) {
    ScheduledFuture<?> previous = renewal;
    if (previous != null) {
      previous.cancel(false);
    }
    try {
      renewal = session.timer().schedule(() -> session.io(this::renew), delayNanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      // closing: the close releases this hold
    }
    if (isFinal()) {
      stopTimers();
    }
  }

  /** Renews now; a test may call it to see the row's verdict at once. */
  void renew() {
    if (isFinal() || !renewing.compareAndSet(false, true)) {
      return;
    }
    long startedAt = System.nanoTime();
    long period = session.settings().renewEvery().toNanos();
    // A renewal that hangs (a pool waiting for a connection, a stalled link) cannot vouch for the
    // lease either: SUSPECT once it has taken half a period, LOST by the expiry check if it goes on.
    ScheduledFuture<?> overdue = null;
    try {
      overdue = session.timer().schedule(() -> {
        if (renewing.get()) {
          session.unreachable(); // the client SUSPENDED first, then its leases SUSPECT
          moveTo(LeaseState.SUSPECT, LeaseState.HELD);
        }
      }, period / 2, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      // closing
    }
    try {
      boolean renewed = session.run(c -> ops.renew(c, session.settings().leaseTtl().toNanos() / 1000));
      if (renewed) {
        session.succeeded();
        if (System.nanoTime() - (startedAt + validNanos) < 0 && !isFinal()) {
          lastRenewedAt = Math.max(lastRenewedAt, startedAt);
          scheduleExpiryCheck();
          moveTo(LeaseState.HELD, LeaseState.SUSPECT);
        }
        checkExpiry();
        scheduleRenewal(period);
      } else {
        if (!isFinal()) {
          log.info("The lock {} was lost: its row expired, was freed or names another owner", name);
        }
        lose(false);
      }
    } catch (SQLException | RuntimeException e) {
      log.debug("Renewing {} failed: {}", name, e.toString());
      session.failed(e);
      moveTo(LeaseState.SUSPECT, LeaseState.HELD);
      checkExpiry();
      scheduleRenewal(Math.max(period / 4, 1_000_000L));
    } finally {
      renewing.set(false);
      if (overdue != null) {
        overdue.cancel(false);
      }
    }
  }

  private void scheduleExpiryCheck() {
    ScheduledFuture<?> previous = expiry;
    if (previous != null) {
      previous.cancel(false);
    }
    try {
      expiry = session.timer().schedule(this::checkExpiry, Math.max(0, validUntilNanos() - System.nanoTime()),
          TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      // closing
    }
  }

  private void checkExpiry() {
    if (!isFinal() && System.nanoTime() - validUntilNanos() >= 0) {
      log.info("The lock {} is presumed lost: no renewal succeeded before its TTL ran out", name);
      lose(true);
    }
  }

  private void lose(boolean freeRow) {
    if (moveTo(LeaseState.LOST, LeaseState.HELD, LeaseState.SUSPECT)) {
      end();
      if (yieldsByRow) {
        session.holdEnded(queueKey);
      }
      background(() -> {
        if (freeRow) {
          freeRow(); // a renewal may have slipped through: free the row rather than let it block others
        }
        session.released(queueKey);
      });
    }
  }

  private boolean isFinal() {
    synchronized (this) {
      return state == LeaseState.LOST || state == LeaseState.RELEASED;
    }
  }

  private void stopTimers() {
    ScheduledFuture<?> r = renewal;
    if (r != null) {
      r.cancel(false);
    }
    ScheduledFuture<?> e = expiry;
    if (e != null) {
      e.cancel(false);
    }
  }

  /** Moves to {@code next} if the state is one of {@code from}, and tells the listeners in order. */
  private boolean moveTo(LeaseState next, LeaseState... from) {
    synchronized (this) {
      boolean allowed = false;
      for (LeaseState s : from) {
        allowed |= state == s;
      }
      if (!allowed) {
        return false;
      }
      state = next;
      announcements.add(next);
    }
    announce();
    return true;
  }

  /** Hands changes to the listeners' executors in the order they happened, one thread at a time. */
  private void announce() {
    while (true) {
      LeaseState next;
      synchronized (this) {
        if (announcing) {
          return;
        }
        next = announcements.poll();
        if (next == null) {
          return;
        }
        announcing = true;
      }
      try {
        for (Registered registered : listeners) {
          registered.tell(next);
        }
      } finally {
        synchronized (this) {
          announcing = false;
        }
      }
    }
  }

  @Override
  public String toString() {
    return name + " owner " + owner + " token " + token + " " + state();
  }

  private record Registered(Lease lease, LeaseListener listener, Executor executor) {
    void tell(LeaseState next) {
      try {
        executor.execute(() -> {
          try {
            listener.stateChanged(lease, next);
          } catch (RuntimeException e) {
            log.warn("A lease listener of {} threw", lease.path(), e);
          }
        });
      } catch (RejectedExecutionException e) {
        log.debug("A lease listener of {} was not told of {}: its executor is shut down", lease.path(), next);
      }
    }
  }
}
