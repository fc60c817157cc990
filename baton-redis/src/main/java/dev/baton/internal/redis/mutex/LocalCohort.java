package dev.baton.internal.redis.mutex;

import dev.baton.ClientClosedException;
import dev.baton.internal.redis.HoldClient;
import dev.baton.internal.redis.RedisSession;
import dev.baton.internal.redis.Tenure;
import dev.baton.lock.LeaseState;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The waiters of one Redis mutex object that share one place in Redis (local hand-over, see
 * {@link dev.baton.redis.RedisMutexOptions}): they queue here, one {@link Acquisition} queues in
 * Redis for all of them, and the granted lock passes from holder to holder inside the client.
 *
 * <p>Why it stays safe: one tenure at a time holds the lock, and it has ended before the next
 * begins; a tenure gets the grant's token plus the number served before it, within the tokens the
 * grant reserved; the lock is passed on only while its hold is {@code HELD}, else released, and
 * the waiters queue again; once the grant's reserved tokens are used (at most {@code
 * localHandOvers + 1} tenures) it is released in Redis, so another client waits behind at most that many.
 *
 * <p>State is guarded by {@code this}. Futures are completed outside the monitor, so a caller's
 * callback never runs while it is held.
 */
final class LocalCohort implements RedisSession.LocalQueue {
  private final String path;
  private final HoldClient timers;
  private final Supplier<ClientClosedException> closed;
  private final Function<Thread, Queued> queue;
  private final ArrayDeque<LocalWaiter> waiting = new ArrayDeque<>();
  private Queued queueing;
  private RedisHold hold;
  private boolean inUse;
  private int served;

  LocalCohort(RedisLockMutex mutex, RedisSession session) {
    this(mutex.path(), session, session::closedException, thread -> {
      Acquisition acquisition = new Acquisition(mutex, session, thread, true);
      return new Queued(acquisition.start(-1), acquisition::giveUp);
    });
  }

  /**
   * The cohort of the lock at {@code path}: its waiters' timeouts run on {@code timers}, they fail with
   * {@code closed}'s error once those have stopped, and {@code queue} queues in Redis for them. A
   * model-checking test passes its own, and plays Redis's part and the client's in memory.
   */
  LocalCohort(String path, HoldClient timers, Supplier<ClientClosedException> closed,
      Function<Thread, Queued> queue) {
    this.path = path;
    this.timers = timers;
    this.closed = closed;
    this.queue = queue;
  }

  /** One place queued for in Redis on behalf of the waiters: its grant, and how to withdraw it. */
  record Queued(CompletableFuture<RedisHold> granted, Consumer<Throwable> giveUp) {}

  private static final class LocalWaiter {
    final Thread thread;
    final CompletableFuture<Tenure> granted = new CompletableFuture<>();

    LocalWaiter(Thread thread) {
      this.thread = thread;
    }
  }

  /**
   * Queues {@code thread}; the future completes with its tenure, or fails with {@code timeout}'s
   * error after {@code timeoutNanos} (negative: no limit). Cancelling it withdraws.
   */
  CompletableFuture<Tenure> acquire(Thread thread, long timeoutNanos, Supplier<Throwable> timeout) {
    LocalWaiter waiter = new LocalWaiter(thread);
    synchronized (this) {
      waiting.add(waiter);
      if (hold == null && queueing == null) {
        startQueueing(thread);
      }
    }
    waiter.granted.whenComplete((tenure, error) -> {
      if (error != null) {
        withdraw(waiter);
      }
    });
    if (timeoutNanos >= 0) {
      RedisSession.Pending timer = timers.later(() -> waiter.granted.completeExceptionally(timeout.get()), timeoutNanos);
      if (timer == null) {
        waiter.granted.completeExceptionally(closed.get());
      } else {
        waiter.granted.whenComplete((tenure, error) -> timer.cancel());
      }
    }
    return waiter.granted;
  }

  /** Whether a thread of this client holds or waits for the lock: a try-once would be behind it. */
  synchronized boolean busy() {
    return hold != null || queueing != null || !waiting.isEmpty();
  }

  /** Fails every waiter (the client closes). */
  @Override
  public void failAll(Throwable error) {
    List<LocalWaiter> failed;
    synchronized (this) {
      failed = new ArrayList<>(waiting);
      waiting.clear();
    }
    failed.forEach(w -> w.granted.completeExceptionally(error));
  }

  private void startQueueing(Thread thread) {
    Queued acquisition = queue.apply(thread);
    queueing = acquisition;
    acquisition.granted().whenComplete((granted, error) -> onQueued(acquisition, granted, error));
  }

  private void onQueued(Queued acquisition, RedisHold granted, Throwable error) {
    List<LocalWaiter> failed = List.of();
    Grant grant = null;
    synchronized (this) {
      if (queueing == acquisition) {
        queueing = null;
      }
      if (error != null) {
        if (!(error instanceof CancellationException)) {
          failed = new ArrayList<>(waiting); // a failure that every waiter would meet
          waiting.clear();
        } else if (!waiting.isEmpty() && hold == null && queueing == null) {
          startQueueing(waiting.peekFirst().thread); // withdrawn for a waiter that gave up; others remain
        }
      } else if (hold != null) {
        // One hold at a time, its tenures one after another: a second grant would run a second
        // HELD tenure beside one still in use. Cannot happen while one acquisition at a time
        // queues (see withdraw); kept as the guard of that rule.
        granted.release();
      } else {
        hold = granted;
        served = 0;
        grant = nextGrant();
      }
    }
    failed.forEach(w -> w.granted.completeExceptionally(error));
    complete(grant);
  }

  /** The tenure to give the first live waiter, or the release of the hold if none is left. Under the monitor. */
  private Grant nextGrant() {
    LocalWaiter next;
    while ((next = waiting.pollFirst()) != null) {
      if (!next.granted.isDone()) {
        inUse = true;
        long token = hold.token() + served;
        hold.use(token);
        served++;
        return new Grant(next, new Tenure(hold, token, this::onTenureEnd));
      }
    }
    releaseHold();
    return null;
  }

  private void onTenureEnd() {
    Grant grant = null;
    synchronized (this) {
      inUse = false;
      // Within the tokens the grant reserved: at most localHandOvers + 1, fewer if the counter ran ahead of the clock.
      boolean passOn = !waiting.isEmpty() && served < hold.reserved() && hold.state() == LeaseState.HELD;
      if (passOn) {
        grant = nextGrant();
      } else {
        releaseHold();
        if (!waiting.isEmpty() && queueing == null) {
          startQueueing(waiting.peekFirst().thread);
        }
      }
    }
    complete(grant);
  }

  private void releaseHold() {
    if (hold != null) {
      hold.release();
      hold = null;
    }
  }

  /** Hands over outside the monitor; a waiter that gave up meanwhile ends the tenure at once. */
  private void complete(Grant grant) {
    if (grant != null && !grant.waiter.granted.complete(grant.tenure)) {
      grant.tenure.exit();
    }
  }

  private void withdraw(LocalWaiter waiter) {
    Queued abandoned = null;
    synchronized (this) {
      waiting.remove(waiter);
      if (waiting.isEmpty() && queueing != null && !inUse) {
        // Still queueing until onQueued hears how it ended: its grant may be on its way, and a
        // waiter that comes meanwhile must not start a second acquisition beside it.
        abandoned = queueing;
      }
    }
    if (abandoned != null) {
      abandoned.giveUp().accept(new CancellationException("no thread of this client waits for " + path + " any more"));
    }
  }

  private record Grant(LocalWaiter waiter, Tenure tenure) {}
}
