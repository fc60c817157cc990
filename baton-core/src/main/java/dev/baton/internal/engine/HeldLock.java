package dev.baton.internal.engine;

import dev.baton.internal.lease.Holding;
import dev.baton.ConnectionState;
import dev.baton.ZkPaths;
import dev.baton.internal.session.Nodes;
import dev.baton.internal.session.Session;
import dev.baton.internal.session.SessionObserver;
import dev.baton.internal.session.LeaseGuard;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseListener;
import dev.baton.lock.LeaseState;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A lock node this client holds, and the state of the lease(s) on it: one per reentrant level,
 * all sharing this object. The node is deleted when the last level is released.
 *
 * <p>State follows the session that created the node: suspended connection makes it SUSPECT,
 * the same session reconnecting makes it HELD again, and expiry (or silence past the validity
 * bound) makes it LOST for good; a lost node that is still there because the session came back
 * after all is deleted at once, so it does not block others.
 */
public final class HeldLock implements SessionObserver, Holding {
  /** What Curator's {@code Revoker} writes to a lock node to ask its holder to let go. */
  public static final byte[] REVOCATION_REQUEST = "__REVOKE__".getBytes(java.nio.charset.StandardCharsets.UTF_8);

  private final Session session;
  private final Session.Handle handle;
  private final String path;
  private final String serverNodePath;
  private final long token;
  private final AtomicInteger levels = new AtomicInteger(1);
  private final List<Subscription> subscriptions = new CopyOnWriteArrayList<>();
  private volatile LeaseState state = LeaseState.HELD;
  private LeaseGuard guard; // guarded by this
  private volatile Runnable onRelease = () -> { };
  private volatile NodeKeeper keeper;
  private volatile boolean markReleases;
  /** Whether a loss the session may come back from deletes the node at once (see {@link #lose}). */
  private final boolean deleteWhenLost;

  /**
   * Takes over the node when its holder releases it, instead of deleting it: the mutex's cohort (local hand-over and caching)
   * hands it to the next local holder or keeps it cached.
   */
  public interface NodeKeeper {
    /** The holder released the node; {@code stateAtRelease} is its lease's state just before. */
    void released(HeldLock lock, LeaseState stateAtRelease);
  }

  private record Subscription(Lease lease, LeaseListener listener, Executor executor) {}

  public HeldLock(Session session, QueueWaiter.Acquisition acquisition, String path) {
    this(session, acquisition, path, true);
  }

  /**
   * With {@code deleteWhenLost == false}, a lease presumed lost keeps its node until it is
   * released (or the session ends): for a holder whose work may outlive its lease, such as a
   * leader selector's task that ignores the interrupt, so nobody else is granted while it runs.
   */
  public HeldLock(Session session, QueueWaiter.Acquisition acquisition, String path, boolean deleteWhenLost) {
    this.deleteWhenLost = deleteWhenLost;
    this.session = session;
    this.handle = acquisition.handle();
    this.path = path;
    this.serverNodePath = acquisition.serverNodePath();
    this.token = acquisition.token();
    session.addObserver(this);
    session.holding(this);
    if (handle != session.handle() || handle.isExpired() || !session.state().isConnected()) {
      // The session changed between the grant and now: check against the state as it is.
      connectionStateChanged(session.state(), session.handle());
    }
  }

  /** Called once, when the last level is released or the lease otherwise ends. */
  public void onRelease(Runnable action) {
    this.onRelease = action;
  }

  /** Adds a reentrant level, unless the lock was already released. */
  public boolean enter() {
    int current;
    do {
      current = levels.get();
      if (current <= 0) {
        return false;
      }
    } while (!levels.compareAndSet(current, current + 1));
    return true;
  }

  /** Releases the node with a record of the release on the lock path ({@link LockDelay}). */
  public void markReleases() {
    this.markReleases = true;
  }

  /** Leaves the node to {@code keeper} when the last level is released. */
  public void keepNode(NodeKeeper keeper) {
    this.keeper = keeper;
  }

  /** Removes a level; the last one releases the node (or leaves it to its keeper). */
  public void exit() {
    if (levels.decrementAndGet() == 0) {
      session.removeObserver(this);
      LeaseState before = state;
      onRelease.run();
      transition(LeaseState.RELEASED, true);
      NodeKeeper nodeKeeper = keeper;
      if (nodeKeeper == null && markReleases) {
        LockDelay.releaseInBackground(session, handle, serverNodePath);
      } else if (nodeKeeper == null) {
        Nodes.deleteInBackground(session, handle, serverNodePath);
      } else {
        // Not handed on while a guarded transaction of this holder is in flight; one whose
        // outcome is unknown may still land, so the node counts as in doubt.
        LeaseGuard sent;
        synchronized (this) {
          sent = guard;
        }
        if (sent == null) {
          nodeKeeper.released(this, before);
        } else {
          sent.close(inDoubt -> nodeKeeper.released(this, inDoubt ? LeaseState.SUSPECT : before));
        }
      }
    }
  }

  /** Lease listeners by default: where no async result completes, so loss notices are not held up. */
  public Executor defaultExecutor() {
    return session.noticeExecutor();
  }

  public Lease newLease() {
    return new LeaseHandle(this);
  }

  public String path() {
    return path;
  }

  public long token() {
    return token;
  }

  /** The node and token this lock stands on. */
  public QueueWaiter.Acquisition acquisition() {
    return new QueueWaiter.Acquisition(handle, serverNodePath, token);
  }

  /** The guard of this node (see {@code Lease.guard()}), made on first use. */
  public synchronized org.apache.zookeeper.Op guard() {
    if (guard == null) {
      guard = LeaseGuard.open(session.settings().onClient(serverNodePath), path,
          () -> state == LeaseState.HELD || state == LeaseState.SUSPECT);
    }
    return guard.op();
  }

  public LeaseState state() {
    return state;
  }

  public Instant validUntil() {
    long until = state == LeaseState.HELD || state == LeaseState.SUSPECT
        ? session.validUntilNanos() : System.nanoTime() - 1;
    return Instant.now().plusNanos(until - System.nanoTime());
  }

  public void addListener(Lease lease, LeaseListener listener, Executor executor) {
    subscriptions.add(new Subscription(lease, listener, executor));
  }

  /**
   * Watches the node's data for Curator's revocation message. The watch ends by itself when the
   * node is deleted (released or expired), so nothing is left on the server.
   */
  void watchForRevocation(Runnable onRequest) {
    if (state == LeaseState.RELEASED || state == LeaseState.LOST) {
      return;
    }
    handle.zk().getData(serverNodePath, session.watching(event -> {
      if (event.getType() == org.apache.zookeeper.Watcher.Event.EventType.NodeDataChanged
          || event.getType() == org.apache.zookeeper.Watcher.Event.EventType.DataWatchRemoved) {
        watchForRevocation(onRequest);
      }
    }), (rc, nodePath, ctx, data, stat) -> {
      org.apache.zookeeper.KeeperException.Code code = org.apache.zookeeper.KeeperException.Code.get(rc);
      if (code == org.apache.zookeeper.KeeperException.Code.OK) {
        if (java.util.Arrays.equals(data, REVOCATION_REQUEST)) {
          Session.executeQuietly(session.eventExecutor(), onRequest);
        }
      } else if (code == org.apache.zookeeper.KeeperException.Code.CONNECTIONLOSS) {
        session.schedule(() -> watchForRevocation(onRequest), java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(100));
      }
    }, null);
  }

  @Override
  public void connectionStateChanged(ConnectionState connection, Session.Handle affected) {
    if (affected != handle) {
      if (handle.isExpired()) {
        lose();
      }
      return;
    }
    switch (connection) {
      case SUSPENDED -> transition(LeaseState.SUSPECT, false);
      case CONNECTED, RECONNECTED -> transition(LeaseState.HELD, false);
      case LOST -> lose();
    }
  }

  @Override
  public void sessionClosed() {
    // Closing the session removes the node on the ensemble.
    transition(LeaseState.RELEASED, true);
  }

  private void lose() {
    if (transition(LeaseState.LOST, true) && deleteWhenLost) {
      // If the session comes back after all, the node must not block the others. A holder that
      // keeps its node while lost deletes it on release (exit), as the levels reach zero.
      Nodes.deleteInBackground(session, handle, serverNodePath);
    }
  }

  /** Moves to {@code next} unless the lease already ended; {@code terminal} states stay. */
  private boolean transition(LeaseState next, boolean terminal) {
    LeaseState previous;
    synchronized (this) {
      previous = state;
      if (previous == next || previous == LeaseState.LOST || previous == LeaseState.RELEASED) {
        return false;
      }
      if (!terminal && next == LeaseState.HELD && previous != LeaseState.SUSPECT) {
        return false;
      }
      state = next;
    }
    if (next == LeaseState.RELEASED || next == LeaseState.LOST) {
      session.notHolding(this);
    }
    for (Subscription s : subscriptions) {
      Session.executeQuietly(s.executor(), () -> s.listener().stateChanged(s.lease(), next));
    }
    return true;
  }

  @Override
  public String toString() {
    return path + " (" + ZkPaths.name(serverNodePath) + ", token " + token + ", " + state + ")";
  }
}
