package dev.baton.internal.redis;

import dev.baton.internal.lease.Hold;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseListener;
import dev.baton.lock.LeaseState;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lease this client holds in Redis, whichever recipe granted it (a mutex's key, a read-write lock's
 * hash field, a semaphore's permit). It renews the grant every renewal period (or, for a fixed lease
 * time, only checks it after a reconnection) and judges the lease by what it hears back: a renewal
 * that fails makes it {@code SUSPECT}, one that finds the grant gone or someone else's makes it {@code
 * LOST}, and so does reaching {@link #validUntilNanos()} (the start of the last renewal that
 * succeeded, plus the TTL, less the drift margin) without another. Two renewal periods without a
 * renewal that succeeded make it {@code SUSPECT} too, whatever the reason (a reply on its way, a
 * renewal not even sent because this process is starved of CPU): the loss is then told while the
 * grant is still alive, with the rest of the TTL as slack for a late timer, not at the moment
 * another client may be granted. The recipe says how to renew and
 * release ({@link #renewCommand}, {@link #releaseCommand}); the release runs once, and is sent again
 * after transient failures while the grant could still be alive.
 */
public abstract class LeaseHold implements RedisSession.Held, Hold {
  private static final Logger log = LoggerFactory.getLogger(LeaseHold.class);

  /** The client's services the hold uses: the session itself, or a test's in-memory client. */
  private final HoldClient client;
  private final RedisSession session; // null for a test's client
  private final String path;
  private final long token;
  private final long ttlNanos;
  private final long validNanos;
  private final List<Registered> listeners = new CopyOnWriteArrayList<>();
  /** Changes not yet handed to the listeners' executors, in the order they happened. Guarded by this. */
  private final java.util.ArrayDeque<Announcement> announcements = new java.util.ArrayDeque<>();
  private boolean announcing; // guarded by this
  private final AtomicBoolean renewing = new AtomicBoolean();
  private LeaseState state = LeaseState.HELD; // guarded by this
  private boolean released; // guarded by this
  /** The release sent, answered or given up; set with {@link #released}. */
  private CompletableFuture<Void> releasing; // guarded by this
  private volatile long lastRenewedAt;
  private final long periodNanos;
  /** False for a fixed lease time: the key expires at grant + TTL, and a renewal only checks it is still ours. */
  private final boolean renews;
  private volatile RedisSession.Pending renewal;
  private volatile ScheduledFuture<?> expiry;
  private volatile ScheduledFuture<?> overdue;

  /**
   * A grant of {@code ttl} on {@code path} with {@code token}, sent at {@code grantedAt} (a {@link
   * System#nanoTime()} reading: the lease counts from the request, not the reply); {@code renews}
   * false for a fixed lease time.
   */
  protected LeaseHold(RedisSession session, String path, long token, java.time.Duration ttl, boolean renews,
      long grantedAt) {
    this(session, session, path, token, ttl, renews, grantedAt);
  }

  /** As above, with {@code client} playing the session (a model-checking test's, in memory); {@link #session()} is null. */
  protected LeaseHold(HoldClient client, String path, long token, java.time.Duration ttl, boolean renews, long grantedAt) {
    this(client, null, path, token, ttl, renews, grantedAt);
  }

  private LeaseHold(HoldClient client, RedisSession session, String path, long token, java.time.Duration ttl,
      boolean renews, long grantedAt) {
    this.client = client;
    this.session = session;
    this.path = path;
    this.token = token;
    this.ttlNanos = ttl.toNanos();
    this.validNanos = ttlNanos - RedisSettings.driftMargin(ttl).toNanos();
    this.renews = renews;
    this.periodNanos = client.settings().renewEvery().toNanos();
    this.lastRenewedAt = grantedAt;
  }

  /**
   * Sends the recipe's renewal: extend the grant by the TTL ({@code extend}) or only check it is
   * still this holder's; completes with 1 if it is, 0 if the grant is gone or someone else's.
   */
  protected abstract CompletableFuture<Long> renewCommand(boolean extend);

  /** Sends the recipe's release: removes the grant if it is still this holder's. */
  protected abstract CompletableFuture<?> releaseCommand();

  /**
   * Whether the grant's validity ran out before it was handed over (its reply or notice held up past
   * the TTL: a frozen link, a starved client), while a renewal could still make it valid: see {@link
   * #renewLate}.
   */
  public boolean ranOutBeforeStart() {
    return renews && System.nanoTime() - validUntilNanos() >= 0;
  }

  /**
   * Before {@link #start}, for a grant that {@link #ranOutBeforeStart}: the recipe's renewal, which
   * finds out whether the grant is still this holder's (its expiry may not have come yet: the lease
   * counts from an earlier time than the grant) and extends it if so. Completes with true if it did,
   * the lease then counting from this renewal's send; false if the grant is gone (expired, and
   * perhaps granted to another since); exceptionally if the renewal failed (the connection dropped,
   * a timeout), the grant's fate unknown.
   */
  public CompletableFuture<Boolean> renewLate() {
    long startedAt = System.nanoTime();
    return renewCommand(true).thenApply(renewed -> {
      if (renewed != null && renewed == 1L) {
        lastRenewedAt = startedAt;
        return true;
      }
      return false;
    });
  }

  /** The recipe's session. */
  protected RedisSession session() {
    return session;
  }

  /**
   * Starts renewing; the lease is HELD. Nothing checks the expiry before the first renewal is
   * sent, a period from now: the lease is valid well past it (the TTL is at least two periods),
   * and a lock released within its first period (most are) costs no exact timer at all.
   */
  public void start() {
    client.register(this);
    if (!renews) {
      // Nothing to renew: the lease ends at its validity, to the moment, unless released before.
      scheduleExpiryCheck();
      if (client.isClosed()) {
        release();
      }
      return;
    }
    scheduleOverdueCheck(lastRenewedAt);
    if (!scheduleRenewal()) {
      release(); // the client closed while the grant was on its way
    }
  }

  private boolean scheduleRenewal() {
    RedisSession.Pending next = client.later(this::renewOnTime, periodNanos);
    renewal = next;
    if (next != null && isFinal()) {
      next.cancel(); // released or lost while this was being scheduled
    }
    return next != null;
  }

  private void renewOnTime() {
    if (!isFinal() && scheduleRenewal()) {
      renew();
    }
  }

  public String path() {
    return path;
  }

  /** The fencing token of the grant. */
  public long token() {
    return token;
  }

  /** The state, LOST as soon as the lease's time is up, even if the expiry check has not run yet. */
  public LeaseState state() {
    checkExpiry();
    synchronized (this) {
      return state;
    }
  }

  public long validUntilNanos() {
    return lastRenewedAt + validNanos;
  }

  public Instant validUntil() {
    synchronized (this) {
      if (state == LeaseState.LOST || state == LeaseState.RELEASED) {
        return Instant.now().minusNanos(1);
      }
    }
    return Instant.now().plusNanos(validUntilNanos() - System.nanoTime());
  }

  /** Tells {@code listener} of every later change, until {@link #removeListener} is called with what this returns. */
  public Object addListener(Lease lease, LeaseListener listener, Executor executor) {
    Registered registered = new Registered(lease, listener, executor);
    listeners.add(registered);
    return registered;
  }

  public void removeListener(Object registration) {
    listeners.remove(registration);
  }

  /** Tells a listener that {@link #removeListener} took off that its lease was released: its last change. */
  public void tellReleased(Object registration) {
    synchronized (this) {
      announcements.add(new Announcement(LeaseState.RELEASED, (Registered) registration));
    }
    announce();
  }

  public Executor defaultExecutor() {
    return client.noticeExecutor();
  }

  /** The connection dropped: no decision should be taken on the lease until a renewal succeeds. */
  @Override
  public void connectionLost() {
    moveTo(LeaseState.SUSPECT, LeaseState.HELD);
  }

  /** The connection is back: renew now rather than at the next period. */
  @Override
  public void renewSoon() {
    client.schedule(this::renew, 0);
  }

  /**
   * Releases the lock in Redis (if it still holds this owner's value); idempotent: every call
   * returns the one release, which completes once the server answered (or it was given up).
   */
  public CompletableFuture<Void> release() {
    CompletableFuture<Void> done;
    synchronized (this) {
      if (released) {
        return releasing;
      }
      released = true;
      releasing = done = new CompletableFuture<>();
    }
    moveTo(LeaseState.RELEASED, LeaseState.HELD, LeaseState.SUSPECT);
    stopTimers();
    // Sent for a lost lease too: the script deletes only a key that still holds our value. Worth
    // sending again while the key could still be ours; after that its TTL has freed it. The hold
    // stays registered until the answer, so that a client closed meanwhile waits for it instead
    // of dropping the release with its connection (the lock would then stay taken for its TTL).
    client.sendUntilDone(this::releaseCommand, () -> lastRenewedAt + ttlNanos)
        .whenComplete((answer, error) -> {
          if (error != null) {
            log.debug("Could not release {}; it expires with its TTL", path, error);
          }
          client.unregister(this);
          done.complete(null);
        });
    return done;
  }

  /** As {@link #release()}, when the client closes. */
  @Override
  public CompletableFuture<Void> releaseOnClose() {
    return release();
  }

  private void renew() {
    if (isFinal() || !renewing.compareAndSet(false, true)) {
      return;
    }
    // Should this renewal (or the connection) fail, the lease is LOST when its time is up, to the nanosecond.
    scheduleExpiryCheck();
    long startedAt = System.nanoTime();
    // A fixed lease time is checked, not extended: its grant expires when the lease said it would.
    renewCommand(renews)
        .whenComplete((renewed, error) -> {
          renewing.set(false);
          if (error != null) {
            log.debug("Renewing {} failed: {}", path, error.toString());
            moveTo(LeaseState.SUSPECT, LeaseState.HELD);
            checkExpiry();
          } else if (renewed != null && renewed == 1L) {
            if (renews && startedAt - lastRenewedAt > 0) {
              lastRenewedAt = startedAt;
              scheduleOverdueCheck(startedAt);
            }
            if (System.nanoTime() - validUntilNanos() < 0) {
              moveTo(LeaseState.HELD, LeaseState.SUSPECT);
            } else {
              checkExpiry();
            }
          } else {
            log.info("The lock {} was lost: its key expired or another owner holds it", path);
            lose();
          }
        });
  }

  private void scheduleExpiryCheck() {
    ScheduledFuture<?> previous = expiry;
    if (previous != null) {
      previous.cancel(false);
    }
    long delay = validUntilNanos() - System.nanoTime();
    try {
      expiry = client.timer().schedule(this::checkExpiry, Math.max(0, delay), TimeUnit.NANOSECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // closed: the close releases this hold
    }
  }

  /**
   * SUSPECT if no renewal sent after {@code renewedAt} has succeeded two periods after it: the next
   * renewal was due one period after it and has had a period to come back.
   */
  private void scheduleOverdueCheck(long renewedAt) {
    ScheduledFuture<?> previous = overdue;
    if (previous != null) {
      previous.cancel(false);
    }
    long delay = renewedAt + 2 * periodNanos - System.nanoTime();
    try {
      overdue = client.timer().schedule(() -> {
        if (lastRenewedAt == renewedAt && !isFinal() && moveTo(LeaseState.SUSPECT, LeaseState.HELD)) {
          log.debug("No renewal of {} succeeded for two periods: SUSPECT until one does", path);
        }
      }, Math.max(0, delay), TimeUnit.NANOSECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // closed: the close releases this hold
    }
  }

  private void checkExpiry() {
    if (!isFinal() && System.nanoTime() - validUntilNanos() >= 0) {
      log.info("The lock {} is presumed lost: no renewal succeeded before its TTL ran out", path);
      lose();
    }
  }

  private void lose() {
    if (moveTo(LeaseState.LOST, LeaseState.HELD, LeaseState.SUSPECT)) {
      stopTimers();
      client.unregister(this);
    }
  }

  private boolean isFinal() {
    LeaseState now;
    synchronized (this) {
      now = state;
    }
    return now == LeaseState.LOST || now == LeaseState.RELEASED;
  }

  private void stopTimers() {
    RedisSession.Pending r = renewal;
    if (r != null) {
      r.cancel();
    }
    ScheduledFuture<?> e = expiry;
    if (e != null) {
      e.cancel(false);
    }
    ScheduledFuture<?> o = overdue;
    if (o != null) {
      o.cancel(false);
    }
  }

  /** Moves to {@code next} if the state is one of {@code from}, and tells the listeners. */
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
      announcements.add(new Announcement(next, null));
    }
    announce();
    return true;
  }

  /**
   * Hands the changes to the listeners' executors in the order they happened, one thread at a time:
   * two changes on two threads (a renewal's reply, a dropped connection, the expiry timer) would
   * otherwise race from the monitor to the executors, and a listener hear HELD after SUSPECT or
   * SUSPECT after LOST. No monitor is held while an executor takes a task.
   */
  private void announce() {
    while (true) {
      Announcement next;
      synchronized (this) {
        if (announcing) {
          return; // the thread announcing hands this one over after its own
        }
        next = announcements.poll();
        if (next == null) {
          return;
        }
        announcing = true;
      }
      try {
        if (next.only() != null) {
          next.only().tell(next.state());
        } else {
          for (Registered registered : listeners) {
            registered.tell(next.state());
          }
        }
      } finally {
        synchronized (this) {
          announcing = false;
        }
      }
    }
  }

  /** A change for every listener, or ({@code only != null}) for one. */
  private record Announcement(LeaseState state, Registered only) {}

  @Override
  public String toString() {
    return path + " token " + token + " " + state();
  }

  private static final class Registered {
    private final Lease lease;
    private final LeaseListener listener;
    private final Executor executor;

    Registered(Lease lease, LeaseListener listener, Executor executor) {
      this.lease = lease;
      this.listener = listener;
      this.executor = executor;
    }

    // A tenure's end tells its listeners RELEASED (tellReleased) after the hold's own release may
    // have: the tenure (HoldTenure) passes it on once.
    void tell(LeaseState next) {
      try {
        executor.execute(() -> {
          try {
            listener.stateChanged(lease, next);
          } catch (RuntimeException e) {
            log.warn("A lease listener of {} threw", lease.path(), e);
          }
        });
      } catch (java.util.concurrent.RejectedExecutionException e) {
        log.debug("A lease listener of {} was not told of {}: its executor is shut down", lease.path(), next);
      }
    }
  }
}
