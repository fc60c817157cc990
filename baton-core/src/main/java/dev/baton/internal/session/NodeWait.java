package dev.baton.internal.session;

import dev.baton.ClientClosedException;
import dev.baton.ConnectionState;
import dev.baton.SessionLostException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/**
 * A wait, with one watch and no thread, until a node is absent or present: what the barriers
 * are made of.
 *
 * <p>Which request sets the watch: waiting for a node to go uses {@code getData}, which sets no
 * watch when the node is already gone; an {@code exists} watch would then stay on the server until
 * someone created the node again. Waiting for a node to appear needs {@code exists}, the only
 * request that watches a missing node.
 *
 * <p>Why a wait that gives up removes its watch with {@code removeAllWatches} when it is the last
 * one of its session on the path: ZooKeeper keeps one data watch per session and path on the
 * server, however many watcher objects the client holds for it. {@code removeWatches} with one
 * watcher object only removes that object from the client (the server is merely asked whether it
 * has a watch there), so the server's watch would stay until the node changes, possibly forever.
 * Removing them all while another wait of the same session still needs the watch would silence
 * that wait, so waits are counted per handle and path, and only the last one removes the
 * server's watch. Should a wait of the same path register while that removal is on its way, the
 * client tells it with a {@code DataWatchRemoved} event and it simply checks again.
 *
 * <p>Connection loss: the client keeps the watch and sets it again on the server when it
 * reconnects (the server then fires it if the node changed meanwhile); the wait checks once more
 * on reconnection anyway, which costs one read. Failed checks are repeated after the retry
 * policy's pause, for as long as the wait lasts. Session expiry takes the watch with the session:
 * a wait that {@code followsNewSession} checks again on the client's new session; otherwise it
 * fails with {@link SessionLostException} so that its owner can start over.
 *
 * <p>The future completes on ZooKeeper's event thread (or the session's timer), never while this
 * object's monitor is held, so an owner may call {@link #cancel()} while holding its own.
 */
public final class NodeWait implements SessionObserver {

  public enum Until { ABSENT, PRESENT }


  private final Session session;
  private final String serverPath;
  private final Until until;
  private final boolean followsNewSession;
  private final CompletableFuture<Void> result = new CompletableFuture<>();

  // Guarded by this.
  private Session.Handle handle;
  private Watcher watcher;
  /** A check was sent whose watch may be set on the server and has not fired since. */
  private boolean armed;
  private boolean done;
  private int retries;

  public NodeWait(Session session, String serverPath, Until until, boolean followsNewSession) {
    this.session = session;
    this.serverPath = serverPath;
    this.until = until;
    this.followsNewSession = followsNewSession;
  }

  /**
   * Sends the first check on {@code on} before returning, so a caller may send requests that the
   * session will answer after it. Completes when the node is {@link Until absent/present}.
   */
  public CompletableFuture<Void> start(Session.Handle on) {
    session.addObserver(this);
    synchronized (this) {
      use(on);
      check();
    }
    if (session.isClosed()) {
      stop(new ClientClosedException(session.settings().connectString()));
    }
    return result;
  }

  /** Stops waiting and removes the watch; false if the wait had ended already. */
  public boolean cancel() {
    return stop(new CancellationException("wait on " + serverPath + " cancelled"));
  }

  /** Whether the node was seen {@link Until absent/present} (or the wait failed). */
  boolean isDone() {
    return result.isDone();
  }

  private boolean stop(RuntimeException reason) {
    synchronized (this) {
      if (done) {
        return false;
      }
      end();
    }
    result.completeExceptionally(reason);
    return true;
  }

  // ---- checks and events (under the monitor) -------------------------------------------------

  private void use(Session.Handle on) {
    handle = on;
    Session.Handle owner = on;
    watcher = session.watching(event -> onEvent(owner, event));
    armed = false;
    PathWatches.started(on, serverPath);
  }

  private void check() {
    Session.Handle sentOn = handle;
    armed = true;
    try {
      if (until == Until.ABSENT) {
        sentOn.zk().getData(serverPath, watcher,
            (rc, path, ctx, data, stat) -> onChecked(sentOn, Code.get(rc)), null);
      } else {
        sentOn.zk().exists(serverPath, watcher,
            (rc, path, ctx, stat) -> onChecked(sentOn, Code.get(rc)), null);
      }
    } catch (RuntimeException e) {
      // A handle closed under us: the session observer moves on or fails the wait.
      later();
    }
  }

  private void onChecked(Session.Handle sentOn, Code code) {
    boolean reached = false;
    RuntimeException failure = null;
    synchronized (this) {
      if (sentOn != handle || done) {
        return;
      }
      switch (code) {
        case OK -> {
          retries = 0;
          // The node is there: getData's watch is set; exists' too, though no longer needed.
          reached = until == Until.PRESENT;
        }
        case NONODE -> {
          retries = 0;
          // exists watches the missing node; getData set nothing.
          armed = until == Until.PRESENT;
          reached = until == Until.ABSENT;
        }
        case CONNECTIONLOSS, OPERATIONTIMEOUT -> later();
        case SESSIONEXPIRED, SESSIONMOVED -> { } // the session observer decides
        default -> failure = Errors.translate(KeeperException.create(code, serverPath), serverPath);
      }
      if (reached || failure != null) {
        end();
      }
    }
    finish(reached, failure);
  }

  private void onEvent(Session.Handle owner, WatchedEvent event) {
    boolean reached = false;
    synchronized (this) {
      if (owner != handle || done) {
        return;
      }
      switch (event.getType()) {
        case NodeDeleted -> {
          armed = false;
          reached = until == Until.ABSENT;
        }
        case NodeCreated, NodeDataChanged -> {
          armed = false;
          reached = until == Until.PRESENT;
        }
        // Another wait of this session gave up and removed every watch on the path.
        case DataWatchRemoved -> armed = false;
        case None -> {
          if (event.getState() != Watcher.Event.KeeperState.SyncConnected) {
            return; // disconnects keep the watch; expiry and close reach the session observer
          }
          // Reconnected: the client has set the watch again; look once more all the same.
        }
        default -> { }
      }
      if (reached) {
        end();
      } else {
        check();
      }
    }
    finish(reached, null);
  }

  private void later() {
    long delay = session.settings().retryPolicy().delayBefore(Math.min(++retries, 10)).toNanos();
    Session.Handle scheduledOn = handle;
    session.schedule(() -> {
      synchronized (this) {
        if (scheduledOn == handle && !done && !session.isClosed()) {
          check();
        }
      }
    }, Math.max(delay, TimeUnit.MILLISECONDS.toNanos(1)));
  }

  /** Marks the wait over and gives up its place in the count; called under the monitor. */
  private void end() {
    done = true;
    session.removeObserver(this);
    release(handle, armed);
  }

  private void finish(boolean reached, RuntimeException failure) {
    if (reached) {
      result.complete(null);
    } else if (failure != null) {
      result.completeExceptionally(failure);
    }
  }

  /**
   * Leaves the count of {@code on}; if a watch of this wait may still be set, removes it: from the
   * server when no other wait of the session needs it, else from the client only.
   */
  private void release(Session.Handle on, boolean watchMayBeSet) {
    boolean last = PathWatches.stopped(on, serverPath);
    if (!watchMayBeSet || on.isExpired() || session.isClosed()) {
      return; // nothing set, or it ended with the session
    }
    try {
      if (last) {
        PathWatches.removeFromServer(on, serverPath);
      } else {
        // local=false: see PathWatches.removeFromServer.
        on.zk().removeWatches(serverPath, watcher, Watcher.WatcherType.Data, false, (rc, path, ctx) -> { }, null);
      }
    } catch (RuntimeException e) {
      // The handle is closing: its watches go with it.
    }
  }

  // ---- session ------------------------------------------------------------------------------

  @Override
  public void connectionStateChanged(ConnectionState state, Session.Handle affected) {
    if (state != ConnectionState.LOST || !affected.isExpired()) {
      return;
    }
    RuntimeException failure = null;
    synchronized (this) {
      if (affected != handle || done) {
        return;
      }
      Session.Handle current = session.handle();
      if (!followsNewSession || current == affected) {
        failure = new SessionLostException("ZooKeeper session expired while waiting on " + serverPath);
        end();
      } else {
        release(affected, false);
        use(current);
        check();
      }
    }
    finish(false, failure);
  }

  @Override
  public void sessionClosed() {
    stop(new ClientClosedException(session.settings().connectString()));
  }

  @Override
  public String toString() {
    return "NodeWait[" + serverPath + " " + until + "]";
  }
}
