package dev.baton.internal.redis.rwlock;

import dev.baton.internal.redis.RedisErrors;
import dev.baton.internal.redis.RedisSession;
import dev.baton.lock.AcquireTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One acquisition of a read-write lock's half, from its first attempt to a grant, a give-up or (trying
 * once) a refusal, without a thread of its own: between attempts it sits in the lock's queue in Redis
 * and waits for a release notice on Redisson's channel (which Redisson's clients also publish on),
 * re-checking every third of the waiter lease, which also keeps its place. At most one attempt is in
 * flight; a wake-up during one runs another after it.
 */
final class RwAcquisition implements RedisSession.Waiter {
  private static final Logger log = LoggerFactory.getLogger(RwAcquisition.class);

  private final RedisReadWriteLock lock;
  private final RedisSession session;
  private final boolean write;
  private final boolean queue;
  private final String downgradeFrom;
  private final String downgradeToken;
  private final long sequence;
  private final String ownerId;
  private final String member;
  private final CompletableFuture<RwHold> result = new CompletableFuture<>();
  private final AtomicBoolean attempting = new AtomicBoolean();
  private final AtomicBoolean again = new AtomicBoolean();
  private volatile boolean listening;
  private volatile boolean granted;
  private volatile ScheduledFuture<?> recheck;

  /** {@code downgradeFrom}: the write hold this thread holds, whose token a read grant then carries; or null. */
  RwAcquisition(RedisReadWriteLock lock, RedisSession session, Thread thread, boolean write, boolean queue,
      RwHold downgradeFrom) {
    this.lock = lock;
    this.session = session;
    this.write = write;
    this.queue = queue;
    this.downgradeFrom = downgradeFrom == null ? "" : downgradeFrom.ownerId();
    this.downgradeToken = downgradeFrom == null ? "0" : Long.toString(downgradeFrom.token());
    this.ownerId = session.nextOwnerId();
    this.sequence = Long.parseLong(ownerId.substring(ownerId.lastIndexOf(':') + 1));
    this.member = session.member(ownerId, thread);
  }

  @Override
  public long sequence() {
    return sequence;
  }

  @Override
  public String member() {
    return member;
  }

  /** Starts; completes with the hold, with {@code null} if a try-once found the lock taken, or fails. */
  CompletableFuture<RwHold> start(long timeoutNanos) {
    session.register(this);
    result.whenComplete((hold, error) -> finish());
    if (timeoutNanos >= 0 && queue) {
      RedisSession.Pending timeout = session.later(
          () -> giveUp(new AcquireTimeoutException(lock.path(), Duration.ofNanos(timeoutNanos))), timeoutNanos);
      if (timeout == null) {
        giveUp(session.closedException());
        return result;
      }
      result.whenComplete((hold, error) -> timeout.cancel());
    }
    if (queue) {
      listening = true;
      listening = session.notices().joinIfSubscribed(lock.keys().channel(), this);
      leaveIfDone();
    }
    attempt();
    return result;
  }

  @Override
  public void wake() {
    attempt();
  }

  @Override
  public void giveUp(Throwable error) {
    result.completeExceptionally(error);
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
    lock.<List<?>>run(RwScripts.ACQUIRE, write ? "write" : "read", ownerId, session.leaseTtlArg(),
            queue ? "queue" : "try", session.waiterLeaseArg(), member, downgradeFrom, downgradeToken,
            lock.keys().timeoutPrefix())
        .whenComplete((reply, error) -> onReply(reply, error, sentAt));
  }

  private void onReply(List<?> reply, Throwable error, long sentAt) {
    try {
      if (error != null) {
        onError(error);
      } else if (((Long) reply.get(0)) == 1L) {
        onGranted((Long) reply.get(1), sentAt);
      } else {
        onRefused();
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

  private void onGranted(long token, long sentAt) {
    if (granted) {
      return;
    }
    granted = true;
    RwHold hold = new RwHold(lock, session, write, ownerId, token, sentAt);
    if (result.isDone()) {
      hold.release();
      return;
    }
    hold.start();
    if (!result.complete(hold)) {
      hold.release(); // given up while the grant was on its way
    }
  }

  private void onRefused() {
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
      CompletableFuture<Void> subscribed = session.notices().join(lock.keys().channel(), this);
      leaveIfDone();
      subscribed.whenComplete((ok, e) -> {
        if (e != null) {
          log.debug("Could not subscribe to release notices of {}; re-checking on the timer", lock.path(), e);
        }
        attempt();
      });
      return;
    }
    scheduleRecheck(session.settings().recheckEvery().toMillis());
  }

  private void leaveIfDone() {
    if (listening && result.isDone()) {
      session.notices().leave(lock.keys().channel(), this);
    }
  }

  private void onError(Throwable error) {
    if (!queue || !RedisErrors.isTransient(error)) {
      giveUp(RedisErrors.translate(error, session.address(), "acquiring " + lock.path()));
      return;
    }
    log.debug("Acquiring {} failed, trying again: {}", lock.path(), error.toString());
    scheduleRecheck(Math.min(session.settings().recheckEvery().toMillis(), 200));
  }

  private void scheduleRecheck(long delayMillis) {
    if (result.isDone() || session.isClosed()) {
      return;
    }
    ScheduledFuture<?> previous = recheck;
    if (previous != null) {
      previous.cancel(false);
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
      session.notices().leave(lock.keys().channel(), this);
    }
    session.unregister(this);
    // On any failure: an attempt whose reply was lost may have been granted or queued all the same.
    if (result.isCompletedExceptionally()) {
      withdraw();
    }
  }

  private void withdraw() {
    long until = System.nanoTime() + Math.max(session.settings().leaseTtl().toNanos(),
        session.settings().waiterLease().toNanos());
    session.sendUntilDone(() -> lock.run(RwScripts.WITHDRAW, write ? "write" : "read", ownerId, member,
            lock.keys().timeoutPrefix()), () -> until)
        .whenComplete((released, error) -> {
          if (error != null) {
            log.debug("Could not take a waiter of {} out of the queue; it leaves it within the waiter lease",
                lock.path(), error);
          }
        });
  }
}
