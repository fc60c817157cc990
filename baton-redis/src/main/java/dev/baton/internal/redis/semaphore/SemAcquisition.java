package dev.baton.internal.redis.semaphore;

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
 * One acquisition of {@code n} permits, all or nothing, without a thread of its own: queued in Redis
 * between attempts, woken by the count Redisson's channel publishes on every release (Redisson's
 * clients publish there too) and by a re-check every third of the waiter lease.
 *
 * <p>A notice wakes one waiter per client, the client's first (see {@link
 * dev.baton.internal.redis.ReleaseNotices}); one that cannot use it passes it on, so that the
 * first in line is woken whichever client's waiter the notice reached: refused while another is
 * first, with permits free, it wakes that one if it is of this client; granted meanwhile (the
 * notice came while its granting attempt was under way, or before it left the channel), it wakes
 * the client's next waiter.
 */
final class SemAcquisition implements RedisSession.Waiter {
  private static final Logger log = LoggerFactory.getLogger(SemAcquisition.class);

  private final RedisSemaphore semaphore;
  private final RedisSession session;
  private final boolean queue;
  private final long sequence;
  private final String member;
  private final String[] ids;
  private final String[] acquireArgs;
  private final CompletableFuture<SemHold> result = new CompletableFuture<>();
  private final AtomicBoolean attempting = new AtomicBoolean();
  private final AtomicBoolean again = new AtomicBoolean();
  private volatile boolean listening;
  private volatile boolean granted;
  private volatile ScheduledFuture<?> recheck;

  SemAcquisition(RedisSemaphore semaphore, RedisSession session, Thread thread, int permits, boolean queue) {
    this.semaphore = semaphore;
    this.session = session;
    this.queue = queue;
    String ownerId = session.nextOwnerId();
    this.sequence = Long.parseLong(ownerId.substring(ownerId.lastIndexOf(':') + 1));
    this.member = session.member(ownerId, thread);
    this.ids = new String[permits];
    for (int i = 0; i < permits; i++) {
      ids[i] = ownerId + ":" + (i + 1); // one id per permit, as Redisson keeps them: each expires on its own
    }
    this.acquireArgs = new String[6 + permits];
    acquireArgs[0] = member;
    acquireArgs[1] = session.leaseTtlArg();
    acquireArgs[2] = queue ? "queue" : "try";
    acquireArgs[3] = session.waiterLeaseArg();
    acquireArgs[4] = Integer.toString(semaphore.permits());
    acquireArgs[5] = Integer.toString(permits);
    System.arraycopy(ids, 0, acquireArgs, 6, permits);
  }

  @Override
  public long sequence() {
    return sequence;
  }

  @Override
  public String member() {
    return member;
  }

  CompletableFuture<SemHold> start(long timeoutNanos) {
    session.register(this);
    result.whenComplete((hold, error) -> finish());
    if (timeoutNanos >= 0 && queue) {
      RedisSession.Pending timeout = session.later(
          () -> giveUp(new AcquireTimeoutException(semaphore.path(), Duration.ofNanos(timeoutNanos))), timeoutNanos);
      if (timeout == null) {
        giveUp(session.closedException());
        return result;
      }
      result.whenComplete((hold, error) -> timeout.cancel());
    }
    if (queue) {
      listening = true;
      listening = session.notices().joinCountedIfSubscribed(semaphore.keys()[2], this);
      leaveIfDone();
    }
    attempt();
    return result;
  }

  @Override
  public void wake() {
    if (granted || result.isDone()) {
      passOn();
      return;
    }
    attempt();
  }

  /** A wake-up this acquisition needs no more goes to the client's next waiter, for whom it may be. */
  private void passOn() {
    if (listening) {
      session.notices().wakeNext(semaphore.keys()[2], this);
    }
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
    semaphore.<List<?>>run(SemScripts.ACQUIRE, acquireArgs).whenComplete((reply, error) -> {
      try {
        if (error != null) {
          onError(error);
        } else if (((Long) reply.get(0)) == 1L) {
          onGranted((Long) reply.get(1), sentAt);
        } else {
          onRefused(reply);
        }
      } catch (RuntimeException e) {
        giveUp(e);
      } finally {
        attempting.set(false);
        if (again.getAndSet(false)) {
          if (granted || result.isDone()) {
            passOn(); // a notice came while this attempt was granted: it was for the next in line
          } else {
            attempt();
          }
        }
      }
    });
  }

  private void onGranted(long token, long sentAt) {
    if (granted) {
      return;
    }
    granted = true;
    SemHold hold = new SemHold(semaphore, session, ids, token, sentAt);
    if (result.isDone()) {
      hold.release();
      return;
    }
    hold.start();
    if (!result.complete(hold)) {
      hold.release();
    }
  }

  private void onRefused(List<?> reply) {
    if (!queue) {
      result.complete(null);
      return;
    }
    if (result.isDone()) {
      withdraw();
      return;
    }
    Object head = reply.size() > 3 ? reply.get(3) : null;
    if (listening && head instanceof String first && !first.isEmpty() && !first.equals(member)
        && ((Long) reply.get(1)) > 0) {
      // Permits are free but another is first in line: if it is one of ours, it may be waiting for
      // the notice this attempt took (the client wakes its first waiter, not its first in line).
      session.notices().wakeMember(semaphore.keys()[2], first);
    }
    if (!listening) {
      listening = true;
      CompletableFuture<Void> subscribed = session.notices().joinCounted(semaphore.keys()[2], this);
      leaveIfDone();
      subscribed.whenComplete((ok, e) -> attempt());
      return;
    }
    scheduleRecheck(session.settings().recheckEvery().toMillis());
  }

  private void leaveIfDone() {
    if (listening && result.isDone()) {
      session.notices().leave(semaphore.keys()[2], this);
    }
  }

  private void onError(Throwable error) {
    if (!queue || !RedisErrors.isTransient(error)) {
      giveUp(RedisErrors.translate(error, session.address(), "acquiring permits of " + semaphore.path()));
      return;
    }
    log.debug("Acquiring permits of {} failed, trying again: {}", semaphore.path(), error.toString());
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
      session.notices().leave(semaphore.keys()[2], this);
    }
    session.unregister(this);
    if (result.isCompletedExceptionally()) {
      withdraw();
    }
  }

  private void withdraw() {
    long until = System.nanoTime() + Math.max(session.settings().leaseTtl().toNanos(),
        session.settings().waiterLease().toNanos());
    String[] args = new String[ids.length + 1];
    args[0] = member;
    System.arraycopy(ids, 0, args, 1, ids.length);
    session.sendUntilDone(() -> semaphore.run(SemScripts.WITHDRAW, args), () -> until)
        .whenComplete((released, error) -> {
          if (error != null) {
            log.debug("Could not take a waiter of {} out of the queue; it leaves it within the waiter lease",
                semaphore.path(), error);
          }
        });
  }
}
