package dev.baton.internal.lock;

import dev.baton.BatonInterruptedException;
import dev.baton.NodeMissingException;
import dev.baton.RetryPolicy;
import dev.baton.SessionLostException;
import dev.baton.ZkPaths;
import dev.baton.internal.engine.QueueWaiter;
import dev.baton.internal.session.Durations;
import dev.baton.internal.session.Errors;
import dev.baton.internal.session.Nodes;
import dev.baton.internal.session.Session;
import dev.baton.lock.AcquireTimeoutException;
import dev.baton.lock.LeaseState;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.data.Stat;

/**
 * The read node a write-lock holder adds when it takes the read lock too (downgrade). As in
 * Curator since CURATOR-621, it is {@code _c_<uuid>-__READ__<seq>} with the write node's own
 * sequence, created as a plain ephemeral node, so it stands at the write node's place in the
 * queue: writers already waiting stay behind it once the write lock is released, readers behind
 * it come in. A new sequential read node would sort above those writers, and the first of them
 * would take the write lock while the downgraded reader still reads (CURATOR-276).
 *
 * <p>Such a node appears below waiters that listed the queue before it existed; that is why a
 * writer lists again after each wake-up ({@link ReadWriteRules#WRITER}). Readers need not: a
 * read node never blocks a reader.
 *
 * <p>The node is created on the write node's own session and never on a later one: a read node
 * of a new session at an old place in the queue would let a reader in beside a writer that queued
 * since. A fixed name makes a lost reply simple: a retry that finds the node checks it belongs to
 * this session.
 */
final class DowngradeNode {
  private DowngradeNode() {}

  /**
   * Creates the node and returns it as an acquisition carrying the write lease's token (the
   * downgraded reader continues that writer's hold, so the token order along the queue holds).
   * Retries on connection loss within {@code timeout} ({@code null}: no limit) and the retry
   * policy; on giving up, the node is deleted in the background in case the create got through.
   *
   * <p>The write lease may end meanwhile: another thread may close it (a lease closes from any
   * thread), or its node may go. Its node is then deleted and a writer of another client may be
   * granted; a read node created afterwards at the old place would stand beside that writer. So
   * the create goes in one {@code multi} with a check of the write node (the ensemble refuses it
   * once the node is gone, whichever timer sent the delete), and a downgrade whose write lease is
   * no longer HELD or SUSPECT, before an attempt or once the node is made, is refused.
   *
   * @throws SessionLostException if the write lease's session is gone
   * @throws IllegalStateException if the write lease was closed before the downgrade completed
   * @throws NodeMissingException if the write lease's node is gone though its session lives
   * @throws AcquireTimeoutException if the connection stays down past {@code timeout}
   */
  static QueueWaiter.Acquisition create(Session session, String path, QueueLock.Hold write, byte[] data,
      Duration timeout) {
    QueueWaiter.Acquisition held = write.acquisition();
    Session.Handle handle = held.handle();
    String writeNode = held.serverNodePath();
    String node = ZkPaths.parent(writeNode) + "/"
        + ReadWriteRules.downgradeNode(ZkPaths.name(writeNode), UUID.randomUUID());
    List<Op> ops = List.of(Op.check(writeNode, -1),
        Op.create(node, data, session.settings().aclFor(node), CreateMode.EPHEMERAL));
    long limit = timeout == null ? -1 : Durations.timeoutNanos(timeout);
    long start = System.nanoTime();
    RetryPolicy policy = session.settings().retryPolicy();
    for (int attempt = 1; ; attempt++) {
      session.checkOpen();
      checkWriteLease(session, path, write, handle);
      try {
        try {
          handle.zk().multi(ops);
        } catch (KeeperException.NoNodeException e) {
          throw writeNodeGone(session, path, write, handle, writeNode, e);
        } catch (KeeperException.NodeExistsException e) {
          // An earlier attempt got through and its reply was lost with the connection.
          Stat stat = handle.zk().exists(node, false);
          if (stat == null) {
            continue; // gone again (its session ended): the checks above decide
          }
          if (stat.getEphemeralOwner() != handle.sessionId()) {
            throw Errors.translate(e, path);
          }
        }
        try {
          checkWriteLease(session, path, write, handle);
        } catch (RuntimeException ended) {
          // Closed while the create was on its way: the caller hears the refusal, not a read lock.
          Nodes.deleteInBackground(session, handle, node);
          throw ended;
        }
        return new QueueWaiter.Acquisition(handle, node, held.token());
      } catch (KeeperException.ConnectionLossException | KeeperException.OperationTimeoutException e) {
        long waited = System.nanoTime() - start;
        long pause = Math.max(policy.delayBefore(attempt).toNanos(), TimeUnit.MILLISECONDS.toNanos(1));
        if (limit >= 0 && waited + pause > limit) {
          Nodes.deleteInBackground(session, handle, node);
          throw new AcquireTimeoutException(path, timeout);
        }
        if (attempt > policy.maxRetries()) {
          Nodes.deleteInBackground(session, handle, node);
          throw Errors.translate(e, path);
        }
        pause(pause, session, handle, node, path);
      } catch (KeeperException.SessionExpiredException e) {
        throw lost(path);
      } catch (KeeperException e) {
        throw Errors.translate(e, path);
      } catch (InterruptedException e) {
        Nodes.deleteInBackground(session, handle, node);
        Thread.currentThread().interrupt();
        throw new BatonInterruptedException("Interrupted while taking the read lock of " + path, e);
      }
    }
  }

  /** Refuses to go on unless the write lease is still HELD or SUSPECT on its own session. */
  private static void checkWriteLease(Session session, String path, QueueLock.Hold write, Session.Handle handle) {
    LeaseState state = write.lock().state();
    if (state == LeaseState.LOST || handle != session.handle() || handle.isExpired()) {
      throw lost(path);
    }
    if (state == LeaseState.RELEASED) {
      throw new IllegalStateException("The write lock of " + path + " held by this thread was released (its"
          + " lease closed, perhaps by another thread) before the downgrade completed, so the read lock was"
          + " not taken: another writer may have held the lock since. Acquire the read lock again, and"
          + " re-read what it protects");
    }
  }

  private static RuntimeException writeNodeGone(Session session, String path, QueueLock.Hold write,
      Session.Handle handle, String writeNode, KeeperException cause) {
    checkWriteLease(session, path, write, handle);
    return new NodeMissingException(path, "The write lock of " + path + " held by this thread has lost its"
        + " node " + session.settings().onClient(writeNode) + " (deleted by another client, or going with"
        + " its session), so it cannot be downgraded: another writer may hold the lock now. Close the"
        + " write lease and acquire again", cause);
  }

  private static void pause(long nanos, Session session, Session.Handle handle, String node, String path) {
    try {
      TimeUnit.NANOSECONDS.sleep(nanos);
    } catch (InterruptedException e) {
      Nodes.deleteInBackground(session, handle, node);
      Thread.currentThread().interrupt();
      throw new BatonInterruptedException("Interrupted while taking the read lock of " + path, e);
    }
  }

  private static SessionLostException lost(String path) {
    return new SessionLostException("The write lock of " + path + " held by this thread was lost with its"
        + " session, so it cannot be downgraded; close its lease before acquiring again");
  }
}
