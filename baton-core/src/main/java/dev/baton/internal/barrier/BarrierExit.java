package dev.baton.internal.barrier;

import dev.baton.ClientClosedException;
import dev.baton.ConnectionState;
import dev.baton.SessionLostException;
import dev.baton.ZkPaths;
import dev.baton.internal.session.Errors;
import dev.baton.internal.session.NodeWait;
import dev.baton.internal.session.Nodes;
import dev.baton.internal.session.Session;
import dev.baton.internal.session.SessionObserver;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.KeeperException;

/**
 * One member leaving a double barrier, step by step as {@link DoubleBarrierRules#exit} says: list,
 * delete our node when the rule says so (not waited for), wait with a {@link NodeWait} for the node
 * the rule names, list again when it goes. Once no member node is left, {@code ready} is deleted
 * and the exit completes. The last member deletes its node and {@code ready} together.
 *
 * <p>Faults: a listing that fails on connection loss is sent again after the retry policy's pause;
 * the node waits ride out connection loss by themselves. Session expiry takes our node, if it was
 * still there: we go on as a member that has left, listing on the new session. Giving up (timeout,
 * interrupt) deletes our node and {@code ready}, as Curator's members do. State is guarded by
 * {@code this}; the result completes outside the monitor.
 */
final class BarrierExit implements SessionObserver {
  private final Session session;
  private final String path;
  private final String serverPath;
  private final String readyPath;
  private final CompletableFuture<Void> result = new CompletableFuture<>();

  private boolean done;
  private Session.Handle handle;
  private String ours;
  private boolean oursDeleted;
  private NodeWait nodeWait;
  private ScheduledFuture<?> timer;
  private int retries;
  private List<String> lastMembers = List.of();
  /** The version of {@code ready} read with the last listing; {@link #NO_READY} if absent. */
  private int readyVersion = NO_READY;
  private static final int NO_READY = -2;

  BarrierExit(Session session, String path) {
    this.session = session;
    this.path = path;
    this.serverPath = session.settings().onServer(path);
    this.readyPath = ZkPaths.join(serverPath, DoubleBarrierRules.READY);
  }

  /**
   * Leaves; {@code ours} is our node as the entry left it, on {@code enteredOn}, or null. {@code
   * timeoutNanos < 0} waits without limit, else the exit gives up after it with the exception
   * {@code onTimeout} makes of the members last seen.
   */
  CompletableFuture<Void> start(Session.Handle enteredOn, String ours, long timeoutNanos,
      Function<List<String>, RuntimeException> onTimeout) {
    session.addObserver(this);
    synchronized (this) {
      if (timeoutNanos >= 0) {
        timer = session.scheduler().schedule(
            () -> giveUp(onTimeout.apply(lastMembers())), timeoutNanos, TimeUnit.NANOSECONDS);
      }
      handle = session.handle();
      // A node of an earlier session went with it.
      this.ours = enteredOn == handle && !enteredOn.isExpired() ? ours : null;
      list();
    }
    if (session.isClosed()) {
      fail(new ClientClosedException(session.settings().connectString()));
    }
    return result;
  }

  private synchronized List<String> lastMembers() {
    return lastMembers;
  }

  /** Stops waiting: our node and ready are deleted. False if the exit had ended. */
  boolean giveUp(RuntimeException reason) {
    synchronized (this) {
      if (done) {
        return false;
      }
      end();
      if (ours != null) {
        Nodes.deleteInBackground(session, handle, nodePath(ours));
      }
      Nodes.deleteInBackground(session, handle, readyPath);
    }
    result.completeExceptionally(reason);
    return true;
  }

  // ---- steps (under the monitor) ------------------------------------------------------------

  /**
   * Reads {@code ready}'s version, then lists, in one round trip (the session answers in order):
   * a member that comes after the listing and confirms its entry (see {@link BarrierEntry})
   * changes that version, so our delete of {@code ready}, which names it, fails, and we list
   * again and wait for that member instead of closing the round under it.
   */
  private void list() {
    Session.Handle sentOn = handle;
    sentOn.zk().exists(readyPath, false, (rc, p, ctx, stat) -> {
      synchronized (this) {
        if (sentOn == handle) {
          readyVersion = stat == null ? NO_READY : stat.getVersion();
        }
      }
    }, null);
    sentOn.zk().getChildren(serverPath, false,
        (rc, p, ctx, children) -> onListed(sentOn, Code.get(rc), children), null);
  }

  private synchronized void onListed(Session.Handle sentOn, Code code, List<String> children) {
    if (sentOn != handle || done) {
      return;
    }
    switch (code) {
      case OK -> step(children);
      case NONODE -> step(List.of()); // the path is gone: nobody is left
      case CONNECTIONLOSS, OPERATIONTIMEOUT -> later(this::list);
      case SESSIONEXPIRED, SESSIONMOVED -> { } // the session observer lists on the new session
      default -> failLater(KeeperException.create(code, serverPath));
    }
  }

  private void step(List<String> children) {
    retries = 0;
    lastMembers = DoubleBarrierRules.memberNodes(children);
    DoubleBarrierRules.Exit next = DoubleBarrierRules.exit(children, ours);
    if (next.done()) {
      if (next.deleteOurs()) {
        deleteLast();
      } else {
        deleteReady();
      }
      return;
    }
    if (next.deleteOurs()) {
      // Not waited for: the node waited on next is not ours, and a lost delete is sent again.
      Nodes.deleteInBackground(session, handle, nodePath(ours));
      ours = null;
    }
    NodeWait wait = new NodeWait(session, nodePath(next.watch()), NodeWait.Until.ABSENT, false);
    nodeWait = wait;
    wait.start(handle).whenComplete((ok, error) -> onGone(wait, error));
  }

  private void onGone(NodeWait wait, Throwable error) {
    RuntimeException failure = null;
    synchronized (this) {
      if (wait != nodeWait || done) {
        return;
      }
      nodeWait = null;
      if (error == null) {
        list();
      } else if (!(error instanceof CancellationException) && !(error instanceof SessionLostException)) {
        failure = Errors.translate(error, path);
      }
    }
    if (failure != null) {
      fail(failure);
    }
  }

  /** We are the last member: our node and ready go together, and the reply for ready ends it. */
  private void deleteLast() {
    Session.Handle sentOn = handle;
    String name = ours;
    oursDeleted = false;
    sentOn.zk().delete(nodePath(name), -1, (rc, p, ctx) -> {
      synchronized (this) {
        Code code = Code.get(rc);
        if (sentOn == handle && !done && (code == Code.OK || code == Code.NONODE)) {
          oursDeleted = true;
          ours = null;
        }
      }
    }, null);
    sentOn.zk().delete(readyPath, readyDeleteVersion(), (rc, p, ctx) -> {
      boolean complete = false;
      synchronized (this) {
        if (sentOn != handle || done) {
          return;
        }
        if (oursDeleted) {
          complete = onReadyDeleted(Code.get(rc));
        } else {
          later(this::list); // our delete failed (connection loss): the next listing decides
        }
      }
      if (complete) {
        result.complete(null);
      }
    }, null);
  }

  private void deleteReady() {
    Session.Handle sentOn = handle;
    sentOn.zk().delete(readyPath, readyDeleteVersion(), (rc, p, ctx) -> {
      boolean complete;
      synchronized (this) {
        if (sentOn != handle || done) {
          return;
        }
        complete = onReadyDeleted(Code.get(rc));
      }
      if (complete) {
        result.complete(null);
      }
    }, null);
  }

  /** Called under the monitor; whether the exit is complete. */
  private boolean onReadyDeleted(Code code) {
    switch (code) {
      case OK, NONODE -> {
        end();
        return true;
      }
      case BADVERSION -> {
        if (readyVersion == NO_READY) {
          end(); // closed before our listing; the ready there now is a new round's
          return true;
        }
        list(); // a member came in after our listing and confirmed: wait for it
      }
      case CONNECTIONLOSS, OPERATIONTIMEOUT -> later(this::deleteReady);
      case SESSIONEXPIRED, SESSIONMOVED -> { }
      default -> failLater(KeeperException.create(code, readyPath));
    }
    return false;
  }

  /**
   * The version our delete of {@code ready} names: the one listed with. Absent then, any version
   * would delete a {@code ready} a new round made since; a version no node has fails with NONODE
   * or BADVERSION instead, and both end the exit.
   */
  private int readyDeleteVersion() {
    return readyVersion == NO_READY ? Integer.MAX_VALUE : readyVersion;
  }

  private void later(Runnable step) {
    long delay = session.settings().retryPolicy().delayBefore(Math.min(++retries, 10)).toNanos();
    Session.Handle scheduledOn = handle;
    session.schedule(() -> {
      synchronized (this) {
        if (scheduledOn == handle && !done && !session.isClosed()) {
          step.run();
        }
      }
    }, Math.max(delay, TimeUnit.MILLISECONDS.toNanos(1)));
  }

  // ---- endings ------------------------------------------------------------------------------

  private void end() {
    done = true;
    if (timer != null) {
      timer.cancel(false);
    }
    session.removeObserver(this);
    if (nodeWait != null) {
      nodeWait.cancel();
      nodeWait = null;
    }
  }

  private void failLater(Throwable error) {
    RuntimeException reason = Errors.translate(error, path);
    session.schedule(() -> fail(reason), 0);
  }

  private void fail(RuntimeException reason) {
    synchronized (this) {
      if (done) {
        return;
      }
      end();
      if (ours != null) {
        Nodes.deleteInBackground(session, handle, nodePath(ours));
      }
    }
    result.completeExceptionally(reason);
  }

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
      if (current == affected) {
        failure = new SessionLostException("ZooKeeper session expired while leaving the double barrier " + path);
      } else {
        if (nodeWait != null) {
          nodeWait.cancel();
          nodeWait = null;
        }
        ours = null; // gone with the session
        handle = current;
        list();
      }
    }
    if (failure != null) {
      fail(failure);
    }
  }

  @Override
  public void sessionClosed() {
    fail(new ClientClosedException(session.settings().connectString()));
  }

  private String nodePath(String name) {
    return ZkPaths.join(serverPath, name);
  }
}
