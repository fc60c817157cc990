package dev.baton.internal.redis.mutex;

import dev.baton.internal.redis.RedisSession;
import dev.baton.internal.redis.RedisSettings;
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
 * A lock this client holds in Redis, for one holder's {@link Tenure} or, with local hand-over, for
 * several in turn. It renews the
 * key's TTL every renewal period and judges the lease by what it hears back: a renewal that
 * fails makes it {@code SUSPECT}, one that finds the key gone or someone else's makes it {@code
 * LOST}, and so does reaching {@link #validUntilNanos()} (the start of the last renewal that
 * succeeded, plus the TTL, less the drift margin) without another. The release deletes the key
 * only if it still holds this holder's value.
 */
final class RedisHold implements RedisSession.Held {
  private static final Logger log = LoggerFactory.getLogger(RedisHold.class);

  private final RedisLockMutex mutex;
  private final RedisSession session;
  private final String ownerId;
  private final String value;
  private final long token;
  /** The last token the grant reserved: local hand-over may hand out up to it. */
  private final long reservedEnd;
  /** The last token handed out; the release gives the rest of the reservation back. */
  private volatile long usedEnd;
  private final long ttlNanos;
  private final long validNanos;
  private final List<Registered> listeners = new CopyOnWriteArrayList<>();
  /** Changes not yet handed to the listeners' executors, in the order they happened. Guarded by this. */
  private final java.util.ArrayDeque<Announcement> announcements = new java.util.ArrayDeque<>();
  private boolean announcing; // guarded by this
  private final AtomicBoolean renewing = new AtomicBoolean();
  private LeaseState state = LeaseState.HELD; // guarded by this
  private boolean released; // guarded by this
  private volatile long lastRenewedAt;
  private final long periodNanos;
  /** False for a fixed lease time: the key expires at grant + TTL, and a renewal only checks it is still ours. */
  private final boolean renews;
  private volatile RedisSession.Pending renewal;
  private volatile ScheduledFuture<?> expiry;

  RedisHold(RedisLockMutex mutex, RedisSession session, String ownerId, String value, long token, long reserved,
      long grantedAt) {
    this.mutex = mutex;
    this.session = session;
    this.ownerId = ownerId;
    this.value = value;
    this.token = token;
    this.reservedEnd = token + Math.max(1, reserved) - 1;
    this.usedEnd = token;
    this.ttlNanos = mutex.leaseTtl().toNanos();
    this.validNanos = ttlNanos - RedisSettings.driftMargin(mutex.leaseTtl()).toNanos();
    this.renews = mutex.renews();
    this.periodNanos = session.settings().renewEvery().toNanos();
    this.lastRenewedAt = grantedAt;
  }

  /**
   * Starts renewing; the lease is HELD. Nothing checks the expiry before the first renewal is
   * sent, a period from now: the lease is valid well past it (the TTL is at least two periods),
   * and a lock released within its first period (most are) costs no exact timer at all.
   */
  void start() {
    session.register(this);
    if (!renews) {
      // Nothing to renew: the lease ends at its validity, to the moment, unless released before.
      scheduleExpiryCheck();
      if (session.isClosed()) {
        release();
      }
      return;
    }
    if (!scheduleRenewal()) {
      release(); // the client closed while the grant was on its way
    }
  }

  private boolean scheduleRenewal() {
    RedisSession.Pending next = session.later(this::renewOnTime, periodNanos);
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

  String path() {
    return mutex.path();
  }

  long token() {
    return token;
  }

  String ownerId() {
    return ownerId;
  }

  /** How many tokens the grant reserved, from {@link #token()} on: the most tenures this hold may serve. */
  long reserved() {
    return reservedEnd - token + 1;
  }

  /** Records that {@code handedOut}, one of the reserved tokens, was handed to a holder. */
  void use(long handedOut) {
    if (handedOut > usedEnd) {
      usedEnd = handedOut;
    }
  }

  /** The state, LOST as soon as the lease's time is up, even if the expiry check has not run yet. */
  LeaseState state() {
    checkExpiry();
    synchronized (this) {
      return state;
    }
  }

  long validUntilNanos() {
    return lastRenewedAt + validNanos;
  }

  Instant validUntil() {
    synchronized (this) {
      if (state == LeaseState.LOST || state == LeaseState.RELEASED) {
        return Instant.now().minusNanos(1);
      }
    }
    return Instant.now().plusNanos(validUntilNanos() - System.nanoTime());
  }

  /** Tells {@code listener} of every later change, until {@link #removeListener} is called with what this returns. */
  Object addListener(Lease lease, LeaseListener listener, Executor executor) {
    Registered registered = new Registered(lease, listener, executor);
    listeners.add(registered);
    return registered;
  }

  void removeListener(Object registration) {
    listeners.remove(registration);
  }

  /** Tells a listener that {@link #removeListener} took off that its lease was released: its last change. */
  void tellReleased(Object registration) {
    synchronized (this) {
      announcements.add(new Announcement(LeaseState.RELEASED, (Registered) registration));
    }
    announce();
  }

  Executor defaultExecutor() {
    return session.events();
  }

  /** The connection dropped: no decision should be taken on the lease until a renewal succeeds. */
  @Override
  public void connectionLost() {
    moveTo(LeaseState.SUSPECT, LeaseState.HELD);
  }

  /** The connection is back: renew now rather than at the next period. */
  @Override
  public void renewSoon() {
    session.schedule(this::renew, 0);
  }

  /** Releases the lock in Redis (if it still holds this owner's value); idempotent. */
  CompletableFuture<Void> release() {
    synchronized (this) {
      if (released) {
        return CompletableFuture.completedFuture(null);
      }
      released = true;
    }
    moveTo(LeaseState.RELEASED, LeaseState.HELD, LeaseState.SUSPECT);
    stopTimers();
    session.unregister(this);
    // Sent for a lost lease too: the script deletes only a key that still holds our value. Worth
    // sending again while the key could still be ours; after that its TTL has freed it.
    return session.sendUntilDone(
        () -> mutex.scripts(LockScripts.RELEASE, value, mutex.keys().layoutArg(), ownerId, Long.toString(reservedEnd),
            Long.toString(usedEnd)),
        () -> lastRenewedAt + ttlNanos)
        .exceptionally(error -> {
          log.debug("Could not release {}; it expires with its TTL", mutex.path(), error);
          return null;
        });
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
    // A fixed lease time is checked, not extended ("0"): its key expires when the lease said it would.
    mutex.scripts(LockScripts.RENEW, value, renews ? mutex.leaseTtlArg() : "0",
            mutex.keys().layoutArg(), ownerId)
        .whenComplete((renewed, error) -> {
          renewing.set(false);
          if (error != null) {
            log.debug("Renewing {} failed: {}", mutex.path(), error.toString());
            moveTo(LeaseState.SUSPECT, LeaseState.HELD);
            checkExpiry();
          } else if (((Long) renewed) == 1L) {
            if (renews) {
              lastRenewedAt = Math.max(lastRenewedAt, startedAt);
            }
            if (System.nanoTime() - validUntilNanos() < 0) {
              moveTo(LeaseState.HELD, LeaseState.SUSPECT);
            } else {
              checkExpiry();
            }
          } else {
            log.info("The lock {} was lost: its key expired or another owner holds it", mutex.path());
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
      expiry = session.timer().schedule(this::checkExpiry, Math.max(0, delay), TimeUnit.NANOSECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // closed: the close releases this hold
    }
  }

  private void checkExpiry() {
    if (!isFinal() && System.nanoTime() - validUntilNanos() >= 0) {
      log.info("The lock {} is presumed lost: no renewal succeeded before its TTL ran out", mutex.path());
      lose();
    }
  }

  private void lose() {
    if (moveTo(LeaseState.LOST, LeaseState.HELD, LeaseState.SUSPECT)) {
      stopTimers();
      session.unregister(this);
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
    return mutex.path() + " owner " + ownerId + " token " + token + " " + state();
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
      } catch (java.util.concurrent.RejectedExecutionException e) {
        log.debug("A lease listener of {} was not told of {}: its executor is shut down", lease.path(), next);
      }
    }
  }
}
