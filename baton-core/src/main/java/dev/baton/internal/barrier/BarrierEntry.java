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
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;

/**
 * One member entering a double barrier: its ephemeral node {@code <path>/<uuid>} is created, and
 * the entry completes when {@code <path>/ready} exists.
 *
 * <p>One round trip for most members: the {@code exists} watch on {@code ready}, the create and
 * the listing are sent together (the session answers them in order, so the listing shows our node,
 * and {@code ready} cannot appear unseen between the watch and the listing). The member whose
 * listing shows enough members creates {@code ready} in a transaction that also checks every
 * member it counted still exists, and its own watch then fires like everyone else's. Having seen
 * {@code ready}, a member confirms: one transaction that checks its node and touches {@code ready}
 * (a new data version); the entry is complete when that succeeds. A leaver deletes {@code ready}
 * naming the version it read just before its last listing, so a member that arrives after that
 * listing, sees the old {@code ready} and would pass, either confirms first (the leaver's delete
 * fails, and it waits for the newcomer) or finds {@code ready} gone (and waits for the next
 * round): a round never closes under a member that passed. The chaos run found that race (a
 * member passing alone as the round closed). If {@code ready}'s ACL refuses the touch, the member
 * enters unconfirmed, as Curator's members do.
 *
 * <p>Giving up (timeout, interrupt) deletes our node. Whether we got in is then decided by the
 * order in which the server saw things: if {@code ready} was created before our delete, the
 * notification of it reaches us before the delete's reply, and the others were released counting
 * us, so the entry completes normally (with no node left); otherwise nobody counted us.
 *
 * <p>Session expiry while entering takes our node: we enter again on the client's new session,
 * with a new node and a new watch, within the same deadline. All state is guarded by {@code this};
 * the result completes outside the monitor.
 */
final class BarrierEntry implements SessionObserver {

  /** Where the entry ended: the session, and our node's name, null if it is already deleted. */
  record Entered(Session.Handle handle, String node) {}

  private enum Phase { ENTERING, GIVING_UP, DONE }

  private final Session session;
  private final String path;
  private final String serverPath;
  private final String readyPath;
  private final int members;
  private final byte[] data;
  private final CompletableFuture<Entered> result = new CompletableFuture<>();

  private Phase phase = Phase.ENTERING;
  private Session.Handle handle;
  private String node;
  private boolean created;
  private NodeWait readyWait;
  private boolean readySeen;
  private RuntimeException givingUpFor;
  private ScheduledFuture<?> timer;
  private int retries;
  private int lastCount;

  BarrierEntry(Session session, String path, int members, byte[] data) {
    this.session = session;
    this.path = path;
    this.serverPath = session.settings().onServer(path);
    this.readyPath = ZkPaths.join(serverPath, DoubleBarrierRules.READY);
    this.members = members;
    this.data = data;
  }

  /**
   * Enters; {@code timeoutNanos < 0} waits without limit, else the entry gives up after it with
   * the exception {@code onTimeout} makes of the number of members last seen.
   */
  CompletableFuture<Entered> start(long timeoutNanos, IntFunction<RuntimeException> onTimeout) {
    session.addObserver(this);
    synchronized (this) {
      if (timeoutNanos >= 0) {
        timer = session.scheduler().schedule(
            () -> giveUp(onTimeout.apply(lastCount())), timeoutNanos, TimeUnit.NANOSECONDS);
      }
      handle = session.handle();
      join();
    }
    if (session.isClosed()) {
      fail(new ClientClosedException(session.settings().connectString()));
    }
    return result;
  }

  private synchronized int lastCount() {
    return lastCount;
  }

  /** Gives up unless the entry is over; deletes our node and decides as the class comment says. */
  boolean giveUp(RuntimeException reason) {
    synchronized (this) {
      if (phase != Phase.ENTERING) {
        return false;
      }
      phase = Phase.GIVING_UP;
      givingUpFor = reason;
      Session.Handle sentOn = handle;
      String name = node;
      sentOn.zk().delete(nodePath(name), -1, (rc, p, ctx) -> onGaveUp(sentOn, name, Code.get(rc)), null);
    }
    return true;
  }

  // ---- entering (under the monitor) ----------------------------------------------------------

  /** Starts (or starts over) with a new node and a new watch on ready. */
  private void join() {
    node = UUID.randomUUID().toString();
    created = false;
    retries = 0;
    watchReady();
    sendCreate();
  }

  private void watchReady() {
    NodeWait previous = readyWait;
    NodeWait wait = new NodeWait(session, readyPath, NodeWait.Until.PRESENT, false);
    readyWait = wait;
    if (previous != null) {
      previous.cancel();
    }
    wait.start(handle).whenComplete((ok, error) -> onReady(wait, error));
  }

  private void sendCreate() {
    Session.Handle sentOn = handle;
    String name = node;
    sentOn.zk().create(nodePath(name), data, session.settings().aclFor(nodePath(name)), CreateMode.EPHEMERAL,
        (rc, p, ctx, createdName) -> onCreated(sentOn, name, Code.get(rc)), null);
    list();
  }

  private void list() {
    Session.Handle sentOn = handle;
    String name = node;
    sentOn.zk().getChildren(serverPath, false,
        (rc, p, ctx, children) -> onListed(sentOn, name, Code.get(rc), children), null);
  }

  private boolean current(Session.Handle sentOn, String name) {
    return sentOn == handle && name.equals(node) && phase == Phase.ENTERING;
  }

  private synchronized void onCreated(Session.Handle sentOn, String name, Code code) {
    if (!current(sentOn, name)) {
      return; // a give-up's delete was sent after this create, and removes the node
    }
    switch (code) {
      // NODEEXISTS: our create, sent again after its reply was lost (the name is ours alone).
      case OK, NODEEXISTS -> created = true;
      case NONODE -> Nodes.createParents(session, nodePath(name)).whenComplete((ok, error) -> {
        synchronized (this) {
          if (!current(sentOn, name)) {
            return;
          }
          if (error != null && !isConnectionLoss(error)) {
            failLater(error);
          } else {
            sendCreate();
          }
        }
      });
      case CONNECTIONLOSS, OPERATIONTIMEOUT -> later(this::sendCreate);
      case SESSIONEXPIRED, SESSIONMOVED -> { } // the session observer enters again
      default -> failLater(KeeperException.create(code, nodePath(name)));
    }
  }

  private synchronized void onListed(Session.Handle sentOn, String name, Code code, List<String> children) {
    if (!current(sentOn, name) || !created) {
      return; // the create failed, and its own handling goes on
    }
    switch (code) {
      case OK -> {
        retries = 0;
        lastCount = DoubleBarrierRules.memberNodes(children).size();
        if (!children.contains(name)) {
          join(); // our node was deleted by someone else: enter again
        } else if (DoubleBarrierRules.entry(children, members) == DoubleBarrierRules.Entry.FULL) {
          open(children);
        } // OPEN or WAIT: the watch on ready decides
      }
      case CONNECTIONLOSS, OPERATIONTIMEOUT -> later(this::list);
      case NONODE -> join(); // the path vanished, our node with it
      case SESSIONEXPIRED, SESSIONMOVED -> { }
      default -> failLater(KeeperException.create(code, serverPath));
    }
  }

  /** Creates ready, on condition that every member counted is still there. */
  private void open(List<String> children) {
    List<Op> ops = new ArrayList<>();
    for (String member : DoubleBarrierRules.memberNodes(children)) {
      ops.add(Op.check(nodePath(member), -1));
    }
    ops.add(Op.create(readyPath, new byte[0], session.settings().aclFor(readyPath), CreateMode.PERSISTENT));
    Session.Handle sentOn = handle;
    String name = node;
    sentOn.zk().multi(ops, (rc, p, ctx, results) -> onOpened(sentOn, name, Code.get(rc)), null);
  }

  private synchronized void onOpened(Session.Handle sentOn, String name, Code code) {
    if (!current(sentOn, name)) {
      return;
    }
    switch (code) {
      case OK, NODEEXISTS -> { } // ready exists: the watch has fired already
      case NONODE -> list(); // a member counted has left: count again
      case CONNECTIONLOSS, OPERATIONTIMEOUT -> later(this::list); // the listing shows if it was applied
      case SESSIONEXPIRED, SESSIONMOVED -> { }
      default -> failLater(KeeperException.create(code, readyPath));
    }
  }

  private void onReady(NodeWait wait, Throwable error) {
    Entered entered = null;
    RuntimeException failure = null;
    synchronized (this) {
      if (wait != readyWait || phase == Phase.DONE) {
        return;
      }
      if (error == null) {
        readySeen = true;
        if (phase == Phase.ENTERING) {
          confirm();
        } // giving up: the delete's reply decides, and will find readySeen
      } else if (!(error instanceof CancellationException) && !(error instanceof SessionLostException)) {
        // Expiry is handled by connectionStateChanged, which enters again.
        failure = Errors.translate(error, path);
      }
    }
    if (entered != null) {
      result.complete(entered);
    } else if (failure != null) {
      fail(failure);
    }
  }

  /**
   * Seen {@code ready}: touches it (a new data version) on condition that our node is still
   * there, so that a leaver whose last listing came before our node cannot delete {@code ready}
   * under us: its delete names the version it saw, and fails.
   */
  private void confirm() {
    Session.Handle sentOn = handle;
    String name = node;
    List<Op> ops = List.of(Op.check(nodePath(name), -1), Op.setData(readyPath, new byte[0], -1));
    sentOn.zk().multi(ops, (rc, p, ctx, results) -> onConfirmed(sentOn, name, Code.get(rc)), null);
  }

  private void onConfirmed(Session.Handle sentOn, String name, Code code) {
    Entered entered = null;
    synchronized (this) {
      if (!current(sentOn, name)) {
        return; // giving up (its delete's reply decides), expired, or done
      }
      switch (code) {
        // NOAUTH: ready's ACL lets only its creator's identity write it; enter as Curator does,
        // unconfirmed (a leaver may then close the round as we come).
        case OK, NOAUTH -> {
          phase = Phase.DONE;
          finish();
          entered = new Entered(handle, node);
        }
        case NONODE -> {
          // The round closed as we came (ready deleted), or our node is gone: the listing tells.
          readySeen = false;
          watchReady();
          list();
        }
        case CONNECTIONLOSS, OPERATIONTIMEOUT -> later(this::confirm);
        case SESSIONEXPIRED, SESSIONMOVED -> { } // the session observer enters again
        default -> failLater(KeeperException.create(code, readyPath));
      }
    }
    if (entered != null) {
      result.complete(entered);
    }
  }

  private void onGaveUp(Session.Handle sentOn, String name, Code code) {
    Entered entered = null;
    RuntimeException reason;
    synchronized (this) {
      if (phase != Phase.GIVING_UP || sentOn != handle || !name.equals(node)) {
        return;
      }
      reason = givingUpFor;
      phase = Phase.DONE;
      finish();
      readyWait.cancel();
      switch (code) {
        case OK, NONODE -> {
          if (readySeen) {
            entered = new Entered(handle, null);
          }
        }
        // The outcome is open; the node is deleted once the connection is back (see enter's Javadoc).
        case CONNECTIONLOSS, OPERATIONTIMEOUT -> Nodes.deleteInBackground(session, sentOn, nodePath(name));
        default -> { } // expired: the node went with the session
      }
    }
    if (entered != null) {
      result.complete(entered);
    } else {
      result.completeExceptionally(reason);
    }
  }

  private void later(Runnable step) {
    long delay = session.settings().retryPolicy().delayBefore(Math.min(++retries, 10)).toNanos();
    Session.Handle scheduledOn = handle;
    String name = node;
    session.schedule(() -> {
      synchronized (this) {
        if (current(scheduledOn, name) && !session.isClosed()) {
          step.run();
        }
      }
    }, Math.max(delay, TimeUnit.MILLISECONDS.toNanos(1)));
  }

  // ---- endings ------------------------------------------------------------------------------

  private void failLater(Throwable error) {
    // Called under the monitor: fail on the timer so the result never completes inside it.
    RuntimeException reason = Errors.translate(error, path);
    session.schedule(() -> fail(reason), 0);
  }

  private void fail(RuntimeException reason) {
    synchronized (this) {
      if (phase == Phase.DONE) {
        return;
      }
      phase = Phase.DONE;
      finish();
      if (readyWait != null) {
        readyWait.cancel();
      }
      if (node != null) {
        Nodes.deleteInBackground(session, handle, nodePath(node));
      }
    }
    result.completeExceptionally(reason);
  }

  private void finish() {
    if (timer != null) {
      timer.cancel(false);
    }
    session.removeObserver(this);
  }

  @Override
  public void connectionStateChanged(ConnectionState state, Session.Handle affected) {
    if (state != ConnectionState.LOST || !affected.isExpired()) {
      return; // a reconnect of the same session keeps our node and our watch
    }
    RuntimeException failure = null;
    synchronized (this) {
      if (affected != handle || phase == Phase.DONE) {
        return;
      }
      Session.Handle current = session.handle();
      if (phase == Phase.GIVING_UP || current == affected) {
        failure = phase == Phase.GIVING_UP ? givingUpFor
            : new SessionLostException("ZooKeeper session expired while entering the double barrier " + path);
      } else {
        handle = current;
        join();
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

  private static boolean isConnectionLoss(Throwable error) {
    Throwable cause = error instanceof java.util.concurrent.CompletionException ? error.getCause() : error;
    return cause instanceof KeeperException.ConnectionLossException
        || cause instanceof KeeperException.OperationTimeoutException;
  }

  private String nodePath(String name) {
    return ZkPaths.join(serverPath, name);
  }
}
