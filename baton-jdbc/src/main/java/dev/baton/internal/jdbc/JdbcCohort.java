package dev.baton.internal.jdbc;

import dev.baton.FencingTokens;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.MutexOptions;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The threads of one SQL mutex object with local hand-over or caching ({@link MutexOptions}): they
 * queue here, one {@link LockQueue.Waiter} asks the database for all of them, and the granted row
 * passes from holder to holder inside the client, or stays with it while idle (cached).
 *
 * <p>Why it stays safe: one tenure at a time holds the row, and it has ended before the next
 * begins; the grant reserved {@link FencingTokens#PER_NODE} tokens in the row's counter, and each
 * tenure takes the next of them, so tokens grow across tenures and across clients (the next grant
 * of any client counts on from the last reserved one); the row is passed on or served from the
 * cache only while its hold is {@code HELD} (a SUSPECT row is given up, not used) and nobody else
 * was heard to want it; once the reserved tokens are used, or {@code localHandOvers} hand-overs
 * came in a row, the row is released and asked for again.
 *
 * <p>State is guarded by {@code this}. Futures are completed outside the monitor, so a caller's
 * callback never runs while it is held.
 */
final class JdbcCohort {
  private final JdbcMutex mutex;
  private final JdbcSession session;
  private final MutexOptions options;
  private final ArrayDeque<LocalWaiter> waiting = new ArrayDeque<>();
  private LockQueue.Waiter queueing;
  private JdbcHold hold;
  private long firstToken;
  private boolean inUse;
  private int served;
  private int handOversInARow;
  private ScheduledFuture<?> idle;
  /** Another asker was refused the row while this cohort asked for or held it (PostgreSQL's notify). */
  private volatile boolean wanted;

  JdbcCohort(JdbcMutex mutex, JdbcSession session, MutexOptions options) {
    this.mutex = mutex;
    this.session = session;
    this.options = options;
  }

  /** One thread (or async caller, {@code boundTo} null) waiting for a tenure. */
  static final class LocalWaiter {
    final Thread boundTo;
    final String label;
    final CompletableFuture<Lease> granted = new CompletableFuture<>();

    LocalWaiter(Thread boundTo, String label) {
      this.boundTo = boundTo;
      this.label = label;
    }
  }

  String name() {
    return mutex.path();
  }

  /** Queues {@code waiter}: served at once from a cached row, else when the row comes. Cancelling its future withdraws. */
  CompletableFuture<Lease> acquire(LocalWaiter waiter) {
    Grant grant = null;
    JdbcHold stale = null;
    synchronized (this) {
      if (hold != null && !inUse && waiting.isEmpty()) {
        FromCache cached = fromCache(waiter);
        grant = cached.grant();
        stale = cached.stale();
      }
      if (grant == null) {
        waiting.add(waiter);
        if (hold == null && queueing == null) {
          startQueueing(waiter.label);
        }
      }
    }
    if (stale != null) {
      stale.release();
    }
    if (grant == null) {
      waiter.granted.whenComplete((lease, error) -> {
        if (error != null) {
          withdraw(waiter);
        }
      });
    }
    complete(grant);
    return waiter.granted;
  }

  /**
   * Serves {@code waiter} from a cached row if there is one and no thread uses it, else, if this
   * cohort neither holds nor asks for the row, asks once ({@code ask}, which grants a hold reserving
   * the tokens) and serves it; else nothing: a try-once would be behind this client's own holder.
   */
  Lease tryOnce(LocalWaiter waiter, java.util.function.Supplier<JdbcHold> ask) {
    JdbcHold stale = null;
    Grant grant = null;
    synchronized (this) {
      if (inUse || queueing != null || !waiting.isEmpty()) {
        return null;
      }
      if (hold != null) {
        FromCache cached = fromCache(waiter);
        grant = cached.grant();
        stale = cached.stale();
      }
    }
    if (stale != null) {
      stale.release();
    }
    if (grant == null) {
      wanted = false;
      JdbcHold granted = ask.get();
      if (granted == null) {
        return null;
      }
      synchronized (this) {
        if (hold == null && !inUse) {
          adopt(granted);
          grant = tenure(waiter);
        }
      }
      if (grant == null) {
        granted.release(); // another thread of this client got the row meanwhile
        return null;
      }
    }
    grant.waiter.granted.complete(grant.lease);
    return grant.lease;
  }

  /**
   * Serves {@code waiter} from the cached row if it may serve another tenure, else forgets the row,
   * which the caller releases once out of the monitor. Under the monitor, with a row no thread uses.
   */
  private FromCache fromCache(LocalWaiter waiter) {
    if (usable()) {
      handOversInARow = 0;
      cancelIdle();
      return new FromCache(tenure(waiter), null);
    }
    return new FromCache(null, dropHold());
  }

  /** A tenure served from the cached row, or the row that could not serve it. */
  private record FromCache(Grant grant, JdbcHold stale) {}

  /** Whether the cached row may serve another tenure. Under the monitor. */
  private boolean usable() {
    return hold.state() == LeaseState.HELD && served < FencingTokens.PER_NODE && !wanted;
  }

  private void startQueueing(String label) {
    wanted = false;
    LockQueue.Waiter asking = new LockQueue.Waiter(mutex, null, label, session.newCachingOwnerId(),
        FencingTokens.PER_NODE);
    queueing = asking;
    asking.future.whenComplete((lease, error) -> onQueued(asking, lease, error));
    session.queue(mutex.path()).add(asking);
  }

  private void onQueued(LockQueue.Waiter asking, Lease lease, Throwable error) {
    List<LocalWaiter> failed = List.of();
    Grant grant = null;
    JdbcHold extra = null;
    synchronized (this) {
      if (queueing == asking) {
        queueing = null;
      }
      if (error != null) {
        if (!(error instanceof CancellationException)) {
          failed = new ArrayList<>(waiting); // a failure every waiter would meet (the client closed)
          waiting.clear();
        } else if (!waiting.isEmpty() && hold == null && queueing == null) {
          startQueueing(waiting.peekFirst().label); // withdrawn for a waiter that gave up; others remain
        }
      } else if (hold != null) {
        extra = ((JdbcLease) lease).hold(); // one hold at a time; cannot happen while one ask at a time is out
      } else {
        adopt(((JdbcLease) lease).hold());
        grant = nextGrant();
      }
    }
    if (extra != null) {
      extra.release();
    }
    for (LocalWaiter w : failed) {
      w.granted.completeExceptionally(error);
    }
    complete(grant);
  }

  /** Takes {@code granted} as this cohort's row. Under the monitor. */
  private void adopt(JdbcHold granted) {
    hold = granted;
    firstToken = granted.token() - FencingTokens.PER_NODE + 1;
    served = 0;
    handOversInARow = 0;
    session.addCohort(this);
    // A SUSPECT or LOST row is given up, not kept: nothing may be served from it.
    granted.listen(null, (l, state) -> {
      if (state == LeaseState.SUSPECT || state == LeaseState.LOST) {
        giveUpIfIdle(granted);
      }
    }, session.events());
  }

  /** The tenure for the first live waiter, or, with none left, the row cached or released. Under the monitor. */
  private Grant nextGrant() {
    LocalWaiter next;
    while ((next = waiting.pollFirst()) != null) {
      if (!next.granted.isDone()) {
        return tenure(next);
      }
    }
    idleOrRelease();
    return null;
  }

  private Grant tenure(LocalWaiter waiter) {
    inUse = true;
    long token = firstToken + served;
    served++;
    JdbcHold h = hold;
    JdbcTenure[] self = new JdbcTenure[1];
    JdbcTenure tenure = new JdbcTenure(h, token, () -> {
      if (waiter.boundTo != null) {
        mutex.unbind(waiter.boundTo, self[0]);
      }
      onTenureEnd(h);
    });
    self[0] = tenure;
    if (waiter.boundTo != null) {
      mutex.bind(waiter.boundTo, tenure);
    }
    return new Grant(waiter, new JdbcLease(tenure));
  }

  private void onTenureEnd(JdbcHold ended) {
    Grant grant = null;
    synchronized (this) {
      if (hold != ended) {
        return; // the row was given up under the tenure; the waiters are queued again already
      }
      inUse = false;
      // Local hand-over passes on even if another client wants the row: it waits behind at most
      // localHandOvers of them, the bound that buys the throughput.
      if (!waiting.isEmpty() && hold.state() == LeaseState.HELD && served < FencingTokens.PER_NODE
          && handOversInARow < options.localHandOvers()) {
        handOversInARow++;
        grant = nextGrant();
      } else if (!waiting.isEmpty()) {
        releaseHold();
        if (queueing == null) { // one ask at a time (a try-once may have adopted a row while one was out)
          startQueueing(waiting.peekFirst().label);
        }
      } else {
        idleOrRelease();
      }
    }
    complete(grant);
  }

  /** No thread wants the row now: cache it for up to the idle bound, or release it. Under the monitor. */
  private void idleOrRelease() {
    if (options.cacheIdle().isZero() || wanted || hold.state() != LeaseState.HELD || served >= FencingTokens.PER_NODE) {
      releaseHold();
      return;
    }
    JdbcHold h = hold;
    try {
      idle = session.timer().schedule(() -> giveUpIfIdle(h), options.cacheIdle().toNanos(), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      releaseHold(); // closing
    }
  }

  /** Another asker wants the row: given up now if no thread of this client uses it, else when the tenure ends. */
  void wantedElsewhere() {
    wanted = true;
    JdbcHold h;
    synchronized (this) {
      h = hold;
    }
    if (h != null) {
      giveUpIfIdle(h);
    }
  }

  private void giveUpIfIdle(JdbcHold h) {
    synchronized (this) {
      if (hold != h || inUse) {
        return;
      }
      releaseHold();
      if (!waiting.isEmpty() && queueing == null) {
        startQueueing(waiting.peekFirst().label);
      }
    }
  }

  /**
   * The token {@code holder()} shows for the row {@code owner} names, whose column holds {@code
   * rowToken}: while a thread of this client holds the row, that tenure's own token; otherwise the
   * row's, the last of the reserved block, which the next grant counts on from.
   */
  synchronized long shownToken(String owner, long rowToken) {
    return hold != null && inUse && hold.owner().equals(owner) ? firstToken + served - 1 : rowToken;
  }

  /** Whether {@code owner} is this cohort's row, cached with no thread of this client using it. */
  synchronized boolean cachedAs(String owner) {
    return hold != null && !inUse && hold.owner().equals(owner);
  }

  private void releaseHold() {
    JdbcHold h = dropHold();
    if (h != null) {
      h.release();
    }
  }

  /** Forgets the row without freeing it; the caller releases it. Under the monitor. */
  private JdbcHold dropHold() {
    cancelIdle();
    JdbcHold h = hold;
    hold = null;
    inUse = false;
    session.removeCohort(this);
    return h;
  }

  private void cancelIdle() {
    if (idle != null) {
      idle.cancel(false);
      idle = null;
    }
  }

  private void withdraw(LocalWaiter waiter) {
    LockQueue.Waiter abandoned = null;
    synchronized (this) {
      waiting.remove(waiter);
      if (waiting.isEmpty() && queueing != null) {
        abandoned = queueing; // onQueued hears how it ended: a grant already on its way is cached or released there
      }
    }
    if (abandoned != null) {
      abandoned.future.cancel(false);
    }
  }

  /** Hands over outside the monitor; a waiter that gave up meanwhile ends the tenure at once. */
  private static void complete(Grant grant) {
    if (grant != null && !grant.waiter.granted.complete(grant.lease)) {
      grant.lease.close();
    }
  }

  private record Grant(LocalWaiter waiter, JdbcLease lease) {}
}
