package dev.baton.internal.leader;

import dev.baton.ClientClosedException;
import dev.baton.internal.engine.HeldLock;
import dev.baton.internal.engine.LockListing;
import dev.baton.internal.engine.LockNodes;
import dev.baton.internal.engine.QueueRules;
import dev.baton.internal.engine.QueueWaiter;
import dev.baton.internal.leadership.ElectionQueue;
import dev.baton.internal.leadership.Leadership;
import dev.baton.internal.session.Errors;
import dev.baton.internal.session.Retrying;
import dev.baton.internal.session.Session;
import dev.baton.lock.Lease;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.apache.zookeeper.KeeperException;

/**
 * The election's queue on ZooKeeper, wire-compatible with Curator: ephemeral sequential nodes
 * under the election's path holding the participant id (UTF-8), the lowest one leading. The latch
 * uses {@code LeaderLatch}'s {@code _c_<uuid>-latch-<seq>} nodes; the selector {@code
 * LeaderSelector}'s, which are an {@code InterProcessMutex}'s {@code _c_<uuid>-lock-<seq>}. Baton's
 * own mutex cannot stand in: it writes its owner document, not the id, as the node's data.
 *
 * <p>A place's lease is the node's ({@link HeldLock}): SUSPECT while the connection is suspended,
 * HELD again if the same session comes back, LOST with the session; its fencing token is the
 * node's creating zxid.
 */
public final class ZkElectionQueue implements ElectionQueue {
  /** ZooKeeper refuses a node's data past about 1 MiB (jute.maxbuffer); stay well below. */
  static final int MAX_ID_BYTES = 512 * 1024;

  private final Session session;
  private final String path;
  private final String serverPath;
  private final QueueWaiter.QueueLayout layout;
  private final boolean deleteWhenLost;
  private final String what;

  private ZkElectionQueue(Session session, String path, QueueWaiter.QueueLayout layout, boolean deleteWhenLost,
      String what) {
    this.session = session;
    this.path = path;
    this.serverPath = session.settings().onServer(path);
    this.layout = layout;
    this.deleteWhenLost = deleteWhenLost;
    this.what = what;
  }

  /** Curator's {@code LeaderLatch} layout: {@code _c_<uuid>-latch-<seq>}. */
  public static ZkElectionQueue latch(Session session, String path) {
    return new ZkElectionQueue(session, path, QueueWaiter.QueueLayout.of("latch-"), true, "leader latch");
  }

  /**
   * Curator's {@code LeaderSelector} layout, an {@code InterProcessMutex}'s. A lease presumed lost
   * keeps its node until the task has returned and closed it (or the session ends): a task that
   * does not stop at the interrupt never runs beside the next leader's while this session lives.
   */
  public static ZkElectionQueue selector(Session session, String path) {
    return new ZkElectionQueue(session, path, QueueRules.LOCK_LAYOUT, false, "leader selector");
  }

  @Override
  public String path() {
    return path;
  }

  @Override
  public void checkOpen() {
    session.checkOpen();
  }

  @Override
  public boolean isClosed() {
    return session.isClosed();
  }

  /** A participant id as Curator stores it, UTF-8 node data: not larger than a node holds. */
  @Override
  public void checkParticipantId(String participantId) {
    int bytes = participantId.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_ID_BYTES) {
      throw new IllegalArgumentException("participantId is " + bytes + " bytes in UTF-8; at most "
          + MAX_ID_BYTES + " fit in a ZooKeeper node");
    }
  }

  @Override
  public CompletableFuture<Lease> queue(String participantId) {
    QueueWaiter waiter = new QueueWaiter(session, serverPath, layout, QueueRules.EXCLUSIVE,
        participantId.getBytes(StandardCharsets.UTF_8), true);
    CompletableFuture<Lease> granted = waiter.start(-1,
        () -> new IllegalStateException("a " + what + " waits without limit"))
        .thenApply(acquisition -> new HeldLock(session, acquisition, path, deleteWhenLost).newLease());
    CompletableFuture<Lease> result = new CompletableFuture<>();
    ElectionQueue.forward(result, granted, waiter::cancel);
    return result;
  }

  /** Directly: the lease's SUSPECT and LOST reach the recipe before another participant can lead. */
  @Override
  public void watch(Lease lock, Runnable onChange) {
    lock.addListener((lease, state) -> onChange.run(), Runnable::run);
  }

  /**
   * A latch's node went with the lease when it turned LOST ({@link HeldLock}): the lease is left
   * as it is, so its holders see it LOST and a transaction it guards fails on the ensemble. A
   * selector's node is kept while lost (see {@link #selector}) and is deleted here: that term
   * never ran its task.
   */
  @Override
  public void releaseLost(Lease lock) {
    if (!deleteWhenLost) {
      lock.close();
    }
  }

  /** Guardable ({@code Baton.guard}) as the node's own lease is. */
  @Override
  public Leadership leadership(Lease lock, Runnable beforeRelease, Runnable afterRelease) {
    return new ZkLeadership(lock, beforeRelease, afterRelease);
  }

  @Override
  public Optional<String> leaderId() {
    List<String> first = participantIds(1);
    return first.isEmpty() ? Optional.empty() : Optional.of(first.get(0));
  }

  @Override
  public List<String> participants() {
    return participantIds(Integer.MAX_VALUE);
  }

  /** Ids of the participants in queue order, read from the ensemble; at most {@code limit}. */
  private List<String> participantIds(int limit) {
    session.checkOpen();
    List<String> children = LockListing.children(session, path, serverPath);
    List<String> ids = new ArrayList<>();
    for (String node : LockNodes.sortedBySequence(children, layout.kinds())) {
      if (ids.size() >= limit) {
        break;
      }
      String nodePath = serverPath + "/" + node;
      try {
        byte[] data = Retrying.call(session, path, zk -> zk.getData(nodePath, false, null));
        ids.add(data == null ? "" : new String(data, StandardCharsets.UTF_8));
      } catch (RuntimeException e) {
        if (!(e.getCause() instanceof KeeperException.NoNodeException)) {
          throw e;
        }
        // Left between the listing and the read: no longer a participant.
      }
    }
    return ids;
  }

  /** Connection trouble and races; not a closed session, a bad ACL or an identity refused. */
  @Override
  public boolean curable(Throwable cause) {
    return !session.isClosed() && !Errors.isUnrecoverable(cause);
  }

  @Override
  public RuntimeException translate(Throwable cause) {
    return session.isClosed() && !Errors.isUnrecoverable(cause)
        ? new ClientClosedException(session.settings().connectString()) : Errors.translate(cause, path);
  }

  /** The client's retry policy. */
  @Override
  public Duration retryDelay(int attempt) {
    return session.settings().retryPolicy().delayBefore(Math.min(attempt, 10));
  }

  /** On the session's scheduler, at least a millisecond on. */
  @Override
  public void schedule(Runnable task, Duration delay) {
    session.schedule(task, Math.max(delay.toNanos(), 1_000_000));
  }

  /** Beside the lease and connection-state notices, where no user's async result can hold it up. */
  @Override
  public Executor noticeExecutor() {
    return session.noticeExecutor();
  }

  @Override
  public Executor failureExecutor() {
    return session.eventExecutor();
  }
}
