package dev.baton.internal.redis.mutex;

import dev.baton.internal.redis.RedisErrors;
import dev.baton.internal.redis.RedisSession;
import dev.baton.lock.AcquireTimeoutException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One acquisition of a Redis lock, from its first attempt to a grant, a give-up or (trying once)
 * a refusal, without a thread of its own. Between attempts it sits in the lock's queue in Redis
 * and waits for a release notice naming it, re-checking on a timer: when the holder's key is due
 * to expire (if it is first in line) and every third of the waiter lease (which also keeps its
 * place). At most one attempt is in flight; a wake-up during one runs another after it.
 */
final class Acquisition implements RedisSession.Waiter {
  private static final Logger log = LoggerFactory.getLogger(Acquisition.class);

  private final RedisLockMutex mutex;
  private final RedisSession session;
  private final long sequence;
  private final String ownerId;
  private final String member;
  private final boolean queue;
  private final CompletableFuture<RedisHold> result = new CompletableFuture<>();
  private final AtomicBoolean attempting = new AtomicBoolean();
  private final AtomicBoolean again = new AtomicBoolean();
  private volatile boolean listening;
  /** Set once an attempt is granted: later attempts would find the same grant and must not make a second hold of it. */
  private volatile boolean granted;
  private volatile ScheduledFuture<?> recheck;

  /** {@code queue == false}: one attempt that does not queue (try-once). */
  Acquisition(RedisLockMutex mutex, RedisSession session, Thread thread, boolean queue) {
    this.mutex = mutex;
    this.session = session;
    this.ownerId = session.nextOwnerId();
    this.sequence = Long.parseLong(ownerId.substring(ownerId.lastIndexOf(':') + 1));
    this.member = session.member(ownerId, thread);
    this.queue = queue;
  }

  @Override
  public long sequence() {
    return sequence;
  }

  @Override
  public String member() {
    return member;
  }

  /**
   * Starts; the future completes with the hold, with {@code null} if a try-once found the lock
   * taken, or fails. {@code timeoutNanos < 0} waits without limit.
   */
  CompletableFuture<RedisHold> start(long timeoutNanos) {
    session.register(this);
    result.whenComplete((hold, error) -> finish());
    if (timeoutNanos >= 0 && queue) {
      RedisSession.Pending timeout = session.later(
          () -> giveUp(new AcquireTimeoutException(mutex.path(), java.time.Duration.ofNanos(timeoutNanos))),
          timeoutNanos);
      if (timeout == null) {
        giveUp(session.closedException());
        return result;
      }
      result.whenComplete((hold, error) -> timeout.cancel());
    }
    if (queue) {
      // Listening already (the lock was contended lately): every release after the first attempt is heard.
      listening = true;
      listening = session.notices().joinIfSubscribed(mutex.keys().channel(), this);
      leaveIfDone();
    }
    attempt();
    return result;
  }

  /** A release notice, a reconnection or the timer: try now. */
  @Override
  public void wake() {
    attempt();
  }

  /** Ends the acquisition with {@code error} (timeout, interrupt, cancel, close) if it has not ended. */
  @Override
  public void giveUp(Throwable error) {
    result.completeExceptionally(error);
  }

  CompletableFuture<RedisHold> result() {
    return result;
  }

  private void attempt() {
    if (result.isDone() || granted) {
      return;
    }
    if (!attempting.compareAndSet(false, true)) {
      again.set(true);
      return;
    }
    long sentAt = System.nanoTime();
    mutex.scripts(LockScripts.ACQUIRE, member, mutex.leaseTtlArg(), queue ? "queue" : "try",
            session.waiterLeaseArg(), mutex.keys().layoutArg(), ownerId, mutex.tokensPerGrantArg())
        .whenComplete((reply, error) -> onReply((List<?>) reply, error, sentAt));
  }

  private void onReply(List<?> reply, Throwable error, long sentAt) {
    try {
      if (error != null) {
        onError(error);
      } else if (((Long) reply.get(0)) == 1L) {
        onGranted((Long) reply.get(1), (String) reply.get(2), reply.size() > 3 ? (Long) reply.get(3) : 1L, sentAt);
      } else {
        onRefused((Long) reply.get(1), (Long) reply.get(2));
      }
    } catch (RuntimeException e) {
      giveUp(e);
    } finally {
      attempting.set(false);
      if (again.getAndSet(false)) {
        attempt();
      }
    }
  }

  private void onGranted(long token, String value, long reserved, long sentAt) {
    if (granted) {
      return; // a duplicate reply to the same grant; the first one makes the hold
    }
    granted = true;
    RedisHold hold = new RedisHold(mutex, session, ownerId, value, token, reserved, sentAt);
    if (!result.isDone()) {
      mutex.confirm(hold).whenComplete((confirmed, error) -> {
        if (error != null) {
          hold.release();
          giveUp(error);
        } else {
          hold.start();
          if (!result.complete(hold)) {
            hold.release(); // given up while the grant was on its way
          }
        }
      });
    } else {
      hold.release();
    }
  }

  private void onRefused(long pttl, long rank) {
    if (!queue) {
      result.complete(null);
      return;
    }
    if (result.isDone()) {
      withdraw(); // given up meanwhile, and this attempt put us back in the queue
      return;
    }
    if (!listening) {
      // Listen before trying again, so that no release between the two goes unheard.
      listening = true;
      CompletableFuture<Void> subscribed = session.notices().join(mutex.keys().channel(), this);
      leaveIfDone();
      subscribed.whenComplete((ok, error) -> {
        if (error != null) {
          log.debug("Could not subscribe to release notices of {}; re-checking on the timer", mutex.path(), error);
        }
        attempt();
      });
      return;
    }
    long every = session.settings().recheckEvery().toMillis();
    long delay = rank == 0 && pttl > 0 ? Math.min(pttl + 1, every) : every;
    scheduleRecheck(delay);
  }

  /**
   * Leaves the release notices just joined if the acquisition has ended meanwhile: its {@link
   * #finish()} may have run before the join, and a listener left behind would take the lock's
   * notices (the Redisson layout's name nobody) from the live waiters of this client for good.
   * {@code listening} is set before joining and the result read after, so one of the two leaves.
   */
  private void leaveIfDone() {
    if (listening && result.isDone()) {
      session.notices().leave(mutex.keys().channel(), this);
    }
  }

  private void onError(Throwable error) {
    if (!queue || !RedisErrors.isTransient(error)) {
      giveUp(RedisErrors.translate(error, session.address(), "acquiring " + mutex.path()));
      return;
    }
    log.debug("Acquiring {} failed, trying again: {}", mutex.path(), error.toString());
    scheduleRecheck(Math.min(session.settings().recheckEvery().toMillis(), 200));
  }

  private void scheduleRecheck(long delayMillis) {
    if (result.isDone() || session.isClosed()) {
      return;
    }
    ScheduledFuture<?> previous = recheck;
    if (previous != null) {
      previous.cancel(false); // one timer per waiter, however many wake-ups came between
    }
    try {
      recheck = session.timer().schedule(this::attempt, delayMillis, TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // the client closed meanwhile; its close ended this acquisition
    }
  }

  private void finish() {
    ScheduledFuture<?> pending = recheck;
    if (pending != null) {
      pending.cancel(false);
    }
    if (listening) {
      session.notices().leave(mutex.keys().channel(), this);
    }
    session.unregister(this);
    // On any failure, a try-once's too: an attempt whose reply was lost (a timeout, a reset) may
    // have been granted or queued all the same, and would hold the lock for a whole TTL unseen.
    if (result.isCompletedExceptionally()) {
      withdraw();
    }
  }

  private void withdraw() {
    // Worth sending again while a grant of a lost reply could still hold the key, or our place in
    // the queue could still be alive.
    long until = System.nanoTime() + Math.max(session.settings().leaseTtl().toNanos(),
        session.settings().waiterLease().toNanos());
    session.sendUntilDone(() -> mutex.scripts(LockScripts.WITHDRAW, member, mutex.keys().layoutArg(), ownerId),
            () -> until)
        .whenComplete((released, error) -> {
          if (error != null) {
            log.debug("Could not take a waiter of {} out of the queue; it leaves it within the waiter lease",
                mutex.path(), error);
          }
        });
  }
}
