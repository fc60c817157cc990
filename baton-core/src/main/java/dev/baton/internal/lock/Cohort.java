package dev.baton.internal.lock;

import dev.baton.ClientClosedException;
import dev.baton.ConnectionState;
import dev.baton.FencingTokens;
import dev.baton.ZkPaths;
import dev.baton.internal.engine.HeldLock;
import dev.baton.internal.engine.LockDelay;
import dev.baton.internal.engine.LockNodes;
import dev.baton.internal.engine.OwnerData;
import dev.baton.internal.engine.QueueWaiter;
import dev.baton.internal.session.Durations;
import dev.baton.internal.session.Errors;
import dev.baton.internal.session.Nodes;
import dev.baton.internal.session.Session;
import dev.baton.internal.session.SessionObserver;
import dev.baton.lock.AcquireTimeoutException;
import dev.baton.lock.LeaseState;
import dev.baton.lock.MutexOptions;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/**
 * The waiters of one mutex object that share one lock node (see {@link MutexOptions}): they queue
 * here, one node queues on the ensemble for all of them, and the node passes from holder to
 * holder inside the client (lock cohorting), or stays cached while nobody else wants it.
 *
 * <p>Why it stays safe:
 *
 * <ul>
 *   <li>Exclusion: one holder at a time owns the node; a holder's lease is RELEASED before the
 *       next local holder gets one, and the ensemble sees one node, so the queue's order holds
 *       against other clients.
 *   <li>Tokens: each holder of a node gets the node's token plus the number of holders it served
 *       before (see {@link FencingTokens}); a node serves at most {@link FencingTokens#PER_NODE}.
 *   <li>Loss: the node is handed over or reused only while its session is connected and the
 *       lease was HELD at release; otherwise it is dropped, and the waiters queue a fresh node.
 *   <li>Fairness: at most {@code localHandOvers} local hand-overs in a row, unless a children
 *       watch (armed while caching) shows nobody else has queued.
 * </ul>
 *
 * State is guarded by {@code this}. Calls into a {@link QueueWaiter} (which completes its future
 * under its own monitor) and completions of waiters' futures happen after leaving it, so the two
 * monitors are never taken in opposite orders. So do the requests this class sends (the node's
 * delete, its cached mark, the children watch): the monitor is held only to change state, never
 * across a call into the ZooKeeper client, so a release on a virtual thread neither pins its
 * carrier there nor keeps the event thread (which takes this monitor for the session's changes)
 * waiting behind a caller's thread.
 */
final class Cohort implements SessionObserver, HeldLock.NodeKeeper {
  private final Session session;
  private final String path;
  private final String serverPath;
  private final QueueWaiter.QueueLayout layout;
  private final QueueWaiter.QueueRule rule;
  private final int localHandOvers;
  private final long cacheIdleNanos;
  private final long lockDelayNanos;
  private final Ensemble ensemble;

  private final ArrayDeque<LocalWaiter> waiting = new ArrayDeque<>();
  private Queueing queueing;
  private QueueWaiter.Acquisition node;
  private HeldLock holder;
  private int served;
  private int inARow;
  private boolean contended;
  private boolean watched;
  private boolean markedCached;
  private ScheduledFuture<?> idleTimer;

  private static final class LocalWaiter {
    final Thread thread;
    final CompletableFuture<HeldLock> granted = new CompletableFuture<>();
    ScheduledFuture<?> timer;

    LocalWaiter(Thread thread) {
      this.thread = thread;
    }
  }

  /**
   * What the cohort asks of the ensemble for its node: to queue one for its waiters, and to delete
   * one it gives up. A seam, so that a model-checking test can play the ensemble's part in memory.
   */
  interface Ensemble {
    /** A node to queue for {@code firstWaiter}'s cohort, not yet sent: {@link Queueing#start} sends it. */
    Queueing queue(Thread firstWaiter);

    /** Deletes {@code node} in the background; {@code released}: with a record of the release ({@link LockDelay}). */
    void delete(QueueWaiter.Acquisition node, boolean released);
  }

  /** A node queued for on the cohort's behalf. */
  interface Queueing {
    /** Sends the request; the future completes once the node is the lock's holder, or fails. */
    CompletableFuture<QueueWaiter.Acquisition> start();

    /**
     * Withdraws it while it queues (before {@link #start} too): its future fails with a {@link
     * CancellationException}. Once granted, it is too late: the future has the node.
     */
    void cancel();
  }

  Cohort(Session session, String path, QueueWaiter.QueueLayout layout, QueueWaiter.QueueRule rule,
      MutexOptions options) {
    this(session, path, layout, rule, options, null);
  }

  /** With {@code ensemble} in place of the requests to the ensemble ({@code null}: the real ones). */
  Cohort(Session session, String path, QueueWaiter.QueueLayout layout, QueueWaiter.QueueRule rule,
      MutexOptions options, Ensemble ensemble) {
    this.session = session;
    this.path = path;
    this.serverPath = session.settings().onServer(path);
    this.layout = layout;
    this.rule = rule;
    this.localHandOvers = options.localHandOvers();
    this.cacheIdleNanos = Durations.timeoutNanos(options.cacheIdle());
    this.lockDelayNanos = Durations.timeoutNanos(options.lockDelay());
    this.ensemble = ensemble != null ? ensemble : new Ensemble() {
      @Override
      public Queueing queue(Thread firstWaiter) {
        return queueOnEnsemble(firstWaiter);
      }

      @Override
      public void delete(QueueWaiter.Acquisition node, boolean released) {
        deleteNode(node, released);
      }
    };
  }

  /**
   * Waits for the lock. {@code timeoutNanos < 0} waits without limit. Cancelling the future
   * withdraws the waiter; a lock granted as it is cancelled is released.
   */
  CompletableFuture<HeldLock> acquire(Thread thread, long timeoutNanos, Supplier<RuntimeException> onTimeout) {
    LocalWaiter waiter = new LocalWaiter(thread);
    List<Runnable> after = new ArrayList<>(2);
    synchronized (this) {
      if (session.isClosed()) {
        waiter.granted.completeExceptionally(new ClientClosedException(session.settings().connectString()));
        return waiter.granted;
      }
      boolean granted = false;
      if (node != null && holder == null) {
        if (reusable()) {
          HeldLock lock = grant();
          after.add(() -> handTo(waiter, lock));
          granted = true;
        } else {
          dropNode(after);
        }
      }
      if (!granted) {
        waiting.add(waiter);
        if (timeoutNanos >= 0) {
          waiter.timer = session.scheduler().schedule(
              () -> timeOut(waiter, onTimeout), timeoutNanos, TimeUnit.NANOSECONDS);
        }
        if (node == null && queueing == null) {
          startQueueing(thread, after);
        }
      }
    }
    after.forEach(Runnable::run);
    waiter.granted.whenComplete((lock, error) -> {
      if (error instanceof CancellationException) {
        withdraw(waiter);
      }
    });
    return waiter.granted;
  }

  /** The cached node, if it can serve a holder now without any request. */
  Optional<HeldLock> tryCached() {
    synchronized (this) {
      if (node == null || holder != null || !reusable()) {
        return Optional.empty();
      }
      return Optional.of(grant());
    }
  }

  /** Whether this client holds or queues a node: a try without waiting finds itself ahead. */
  synchronized boolean busy() {
    return node != null || queueing != null;
  }

  // ---- the node's life ----------------------------------------------------------------------

  private void startQueueing(Thread firstWaiter, List<Runnable> after) {
    Queueing queued = ensemble.queue(firstWaiter);
    queueing = queued;
    after.add(() -> queued.start().whenComplete((acquisition, error) -> onQueued(queued, acquisition, error)));
  }

  private Queueing queueOnEnsemble(Thread firstWaiter) {
    QueueWaiter queued = new QueueWaiter(session, serverPath, layout, rule, OwnerData.forThread(firstWaiter), true)
        .withLockDelay(lockDelayNanos);
    return new Queueing() {
      @Override
      public CompletableFuture<QueueWaiter.Acquisition> start() {
        return queued.start(-1, () -> new AcquireTimeoutException(path, null));
      }

      @Override
      public void cancel() {
        queued.cancel();
      }
    };
  }

  private void deleteNode(QueueWaiter.Acquisition node, boolean released) {
    if (released && lockDelayNanos > 0) {
      LockDelay.releaseInBackground(session, node.handle(), node.serverNodePath());
    } else {
      Nodes.deleteInBackground(session, node.handle(), node.serverNodePath());
    }
  }

  private void onQueued(Queueing queued, QueueWaiter.Acquisition acquisition, Throwable error) {
    List<Runnable> after = new ArrayList<>(2);
    synchronized (this) {
      if (queueing != queued) {
        if (acquisition != null) {
          after.add(() -> ensemble.delete(acquisition, false));
        }
      } else {
        queued(acquisition, error, after);
      }
    }
    after.forEach(Runnable::run);
  }

  /** The node queued for came (or failed); call under this lock. */
  private void queued(QueueWaiter.Acquisition acquisition, Throwable error, List<Runnable> after) {
    queueing = null;
    if (error != null) {
      RuntimeException reason = Errors.translate(error, path);
      for (LocalWaiter waiter : drainWaiting()) {
        after.add(() -> waiter.granted.completeExceptionally(reason));
      }
      return;
    }
    node = acquisition;
    session.addObserver(this); // while it has a node; the queueing waiter watched until now
    served = 0;
    inARow = 0;
    contended = false;
    watched = false;
    markedCached = false;
    handToNext(after);
  }

  /** Called by the holder's lease when its last level is released. */
  @Override
  public void released(HeldLock lock, LeaseState stateAtRelease) {
    List<Runnable> after = new ArrayList<>(2);
    synchronized (this) {
      if (holder != lock) {
        return;
      }
      holder = null;
      boolean sound = stateAtRelease == LeaseState.HELD && isCurrent(node) && served < FencingTokens.PER_NODE;
      if (!sound) {
        dropNode(stateAtRelease != LeaseState.LOST, after);
        requeueIfWaiting(after);
      } else if (!waiting.isEmpty()) {
        if (inARow < localHandOvers || (watched && !contended)) {
          inARow++;
          handToNext(after);
        } else {
          dropNode(after); // let the other clients' waiters in; ours queue behind them
          requeueIfWaiting(after);
        }
      } else if (cacheIdleNanos > 0 && !contended && session.state().isConnected()) {
        keepCached(after);
      } else {
        dropNode(after);
      }
    }
    after.forEach(Runnable::run);
  }

  private void handToNext(List<Runnable> after) {
    LocalWaiter next;
    while ((next = waiting.poll()) != null) {
      if (next.timer != null) {
        next.timer.cancel(false);
      }
      if (!next.granted.isDone()) {
        LocalWaiter waiter = next;
        HeldLock lock = grant();
        after.add(() -> handTo(waiter, lock));
        return;
      }
    }
    // Everyone left while the node was on its way: keep it if caching, else give it up.
    if (cacheIdleNanos > 0 && !contended && session.state().isConnected()) {
      keepCached(after);
    } else {
      dropNode(after);
    }
  }

  private HeldLock grant() {
    cancelIdleTimer();
    long token = node.token() + served++;
    HeldLock lock = new HeldLock(session,
        new QueueWaiter.Acquisition(node.handle(), node.serverNodePath(), token), path);
    lock.keepNode(this);
    holder = lock;
    return lock;
  }

  /** Completes a waiter outside the monitor; a waiter cancelled meanwhile gives the lock back. */
  private static void handTo(LocalWaiter waiter, HeldLock lock) {
    if (!waiter.granted.complete(lock)) {
      lock.newLease().close();
    }
  }

  private void keepCached(List<Runnable> after) {
    QueueWaiter.Acquisition kept = node;
    idleTimer = session.scheduler().schedule(() -> idleExpired(kept), cacheIdleNanos, TimeUnit.NANOSECONDS);
    if (!markedCached) {
      markedCached = true;
      // Not waited for: holder() readers see the lock as cached from the next read on.
      after.add(() -> kept.handle().zk().setData(kept.serverNodePath(), OwnerData.cached(), -1,
          (rc, p, ctx, stat) -> { }, null));
    }
    if (!watched) {
      watched = true;
      after.add(() -> watchOthers(kept));
    }
  }

  /**
   * A watch on the lock's children: any child created or deleted while we keep the node means
   * another client queued (or left), and the cached node is given up.
   */
  private void watchOthers(QueueWaiter.Acquisition kept) {
    String ours = ZkPaths.name(kept.serverNodePath());
    Watcher watcher = session.watching((WatchedEvent event) -> {
      if (event.getType() == Watcher.Event.EventType.NodeChildrenChanged) {
        othersQueued(kept);
      }
    });
    kept.handle().zk().getChildren(serverPath, watcher, (rc, p, ctx, children) -> {
      if (Code.get(rc) != Code.OK) {
        othersQueued(kept); // cannot tell: give the cache up rather than keep others out
        return;
      }
      for (String child : LockNodes.sortedBySequence(children, layout.kinds())) {
        if (!child.equals(ours)) {
          othersQueued(kept);
          return;
        }
      }
    }, null);
  }

  private void othersQueued(QueueWaiter.Acquisition kept) {
    List<Runnable> after = new ArrayList<>(1);
    synchronized (this) {
      if (node != kept) {
        return;
      }
      contended = true;
      if (holder == null) {
        dropNode(after);
      }
    }
    after.forEach(Runnable::run);
  }

  private void idleExpired(QueueWaiter.Acquisition kept) {
    List<Runnable> after = new ArrayList<>(1);
    synchronized (this) {
      if (node == kept && holder == null) {
        dropNode(after);
      }
    }
    after.forEach(Runnable::run);
  }

  private void dropNode(List<Runnable> after) {
    dropNode(true, after);
  }

  /**
   * Gives the node up; {@code released} says whether that is a release (see {@link LockDelay}).
   * The delete goes on {@code after}, to be sent once the monitor is left; it is added before any
   * new queueing, so it is still sent first.
   */
  private void dropNode(boolean released, List<Runnable> after) {
    cancelIdleTimer();
    if (node != null) {
      QueueWaiter.Acquisition dropped = node;
      after.add(() -> ensemble.delete(dropped, released));
      node = null;
      session.removeObserver(this);
    }
    holder = null;
  }

  private void requeueIfWaiting(List<Runnable> after) {
    LocalWaiter first = waiting.peek();
    if (first != null && queueing == null && node == null) {
      startQueueing(first.thread, after);
    }
  }

  private boolean reusable() {
    return !contended && served < FencingTokens.PER_NODE && isCurrent(node) && session.state().isConnected();
  }

  private boolean isCurrent(QueueWaiter.Acquisition acquisition) {
    return acquisition != null && acquisition.handle() == session.handle() && !acquisition.handle().isExpired();
  }

  private void cancelIdleTimer() {
    if (idleTimer != null) {
      idleTimer.cancel(false);
      idleTimer = null;
    }
  }

  // ---- waiters leaving ----------------------------------------------------------------------

  private void timeOut(LocalWaiter waiter, Supplier<RuntimeException> onTimeout) {
    if (leave(waiter)) {
      waiter.granted.completeExceptionally(onTimeout.get());
    }
  }

  private void withdraw(LocalWaiter waiter) {
    leave(waiter);
  }

  /** Removes a waiter; the last one to leave withdraws the node being queued for. */
  private boolean leave(LocalWaiter waiter) {
    Queueing toCancel = null;
    boolean removed;
    synchronized (this) {
      removed = waiting.remove(waiter);
      if (waiter.timer != null) {
        waiter.timer.cancel(false);
      }
      if (removed && waiting.isEmpty() && queueing != null) {
        toCancel = queueing;
        queueing = null; // a grant arriving anyway is deleted by onQueued
      }
    }
    if (toCancel != null) {
      toCancel.cancel();
    }
    return removed;
  }

  private List<LocalWaiter> drainWaiting() {
    List<LocalWaiter> drained = new ArrayList<>(waiting);
    waiting.clear();
    drained.forEach(w -> {
      if (w.timer != null) {
        w.timer.cancel(false);
      }
    });
    return drained;
  }

  // ---- the session --------------------------------------------------------------------------

  @Override
  public void connectionStateChanged(ConnectionState state, Session.Handle affected) {
    List<Runnable> after = new ArrayList<>(1);
    synchronized (this) {
      if (node == null) {
        return;
      }
      if (state == ConnectionState.LOST || !isCurrent(node)) {
        // The node is gone with its session (or presumed so). A holder's lease reports the loss
        // by itself; its release later finds nothing to hand on. The waiters queue a new node.
        holder = null;
        dropNode(false, after);
        requeueIfWaiting(after);
      } else if (!state.isConnected() && holder == null) {
        dropNode(after); // a cached node is not used while its session is in doubt
      }
    }
    after.forEach(Runnable::run);
  }

  @Override
  public void sessionClosed() {
    List<LocalWaiter> failed;
    synchronized (this) {
      session.removeObserver(this);
      cancelIdleTimer();
      node = null;
      holder = null;
      failed = drainWaiting();
    }
    ClientClosedException reason = new ClientClosedException(session.settings().connectString());
    failed.forEach(w -> w.granted.completeExceptionally(reason));
  }
}
