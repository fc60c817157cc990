package dev.baton.internal.barrier;

import dev.baton.BatonInterruptedException;
import dev.baton.barrier.Barrier;
import dev.baton.internal.engine.OwnerData;
import dev.baton.internal.session.Durations;
import dev.baton.internal.session.Errors;
import dev.baton.internal.session.NodeWait;
import dev.baton.internal.session.Nodes;
import dev.baton.internal.session.Retrying;
import dev.baton.internal.session.Session;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/**
 * The barrier: one persistent node, up while it exists, as Curator's {@code DistributedBarrier}.
 * Each wait is a {@link NodeWait} for the node's absence.
 */
public final class ZkBarrier implements Barrier {
  private final Session session;
  private final String path;
  private final String serverPath;

  /** {@code path} must be validated already. */
  public ZkBarrier(Session session, String path) {
    this.session = session;
    this.path = path;
    this.serverPath = session.settings().onServer(path);
  }

  @Override
  public String path() {
    return path;
  }

  @Override
  public void set() {
    session.checkOpen();
    byte[] data = OwnerData.forThread(Thread.currentThread());
    Retrying.call(session, path, zk -> {
      try {
        zk.create(serverPath, data, session.settings().aclFor(serverPath), CreateMode.PERSISTENT);
      } catch (KeeperException.NoNodeException noParent) {
        createParents();
        try {
          zk.create(serverPath, data, session.settings().aclFor(serverPath), CreateMode.PERSISTENT);
        } catch (KeeperException.NodeExistsException alreadyUp) {
          // set by someone else meanwhile
        }
      } catch (KeeperException.NodeExistsException alreadyUp) {
        // already up, or our own create whose reply was lost
      }
      return null;
    });
  }

  private void createParents() throws KeeperException, InterruptedException {
    Nodes.createParentsAndWait(session, serverPath, path);
  }

  @Override
  public void remove() {
    session.checkOpen();
    Retrying.call(session, path, zk -> {
      try {
        zk.delete(serverPath, -1);
      } catch (KeeperException.NoNodeException notUp) {
        // not up, or our own delete whose reply was lost
      } catch (KeeperException.NotEmptyException e) {
        throw new dev.baton.BatonException("Cannot remove the barrier " + path + ": its node has children,"
            + " so it is not a barrier's node (a double barrier's, perhaps?)", e);
      }
      return null;
    });
  }

  @Override
  public boolean isSet() {
    session.checkOpen();
    return Retrying.call(session, path, zk -> zk.exists(serverPath, false) != null);
  }

  @Override
  public void await() {
    waitFor(-1);
  }

  @Override
  public boolean await(Duration timeout) {
    Durations.checkedTimeout(timeout);
    if (timeout.isZero()) {
      return !isSet(); // only look: one read, and no watch to clean up
    }
    return waitFor(Durations.timeoutNanos(timeout));
  }

  /** Blocks for at most {@code timeoutNanos} ({@code < 0}: no limit); whether the barrier is down. */
  private boolean waitFor(long timeoutNanos) {
    session.checkOpen();
    NodeWait wait = new NodeWait(session, serverPath, NodeWait.Until.ABSENT, true);
    CompletableFuture<Void> down = wait.start(session.handle());
    try {
      if (timeoutNanos < 0) {
        down.get();
      } else {
        down.get(timeoutNanos, TimeUnit.NANOSECONDS);
      }
      return true;
    } catch (TimeoutException e) {
      if (wait.cancel()) {
        return false;
      }
      return outcome(down); // it ended just now: its own answer decides
    } catch (InterruptedException e) {
      wait.cancel();
      Thread.currentThread().interrupt();
      throw new BatonInterruptedException("Interrupted while waiting on the barrier " + path, e);
    } catch (ExecutionException e) {
      throw Errors.translate(e.getCause(), path);
    }
  }

  /** The answer of a wait that has ended, or is completing on another thread right now. */
  private boolean outcome(CompletableFuture<Void> down) {
    try {
      down.join();
      return true;
    } catch (java.util.concurrent.CompletionException e) {
      throw Errors.translate(e.getCause(), path);
    }
  }

  @Override
  public CompletableFuture<Void> awaitAsync() {
    session.checkOpen();
    NodeWait wait = new NodeWait(session, serverPath, NodeWait.Until.ABSENT, true);
    CompletableFuture<Void> down = new CompletableFuture<>();
    // Any completion by the caller (cancel, orTimeout) ends the wait and removes its watch.
    down.whenComplete((ok, error) -> {
      if (error != null) {
        wait.cancel();
      }
    });
    wait.start(session.handle()).whenComplete((ok, error) -> Session.executeQuietly(session.eventExecutor(), () -> {
      if (error == null) {
        down.complete(null);
      } else {
        down.completeExceptionally(Errors.translate(error, path));
      }
    }));
    return down;
  }

  @Override
  public String toString() {
    return "Barrier[" + path + "]";
  }
}
