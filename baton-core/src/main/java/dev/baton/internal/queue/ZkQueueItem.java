package dev.baton.internal.queue;

import dev.baton.BatonObserver;
import dev.baton.BatonException;
import dev.baton.BatonInterruptedException;
import dev.baton.Codec;
import dev.baton.ConnectionException;
import dev.baton.NodeMissingException;
import dev.baton.OutcomeUnknownException;
import dev.baton.RetryPolicy;
import dev.baton.internal.session.Errors;
import dev.baton.internal.session.Nodes;
import dev.baton.internal.session.Retrying;
import dev.baton.internal.session.Session;
import dev.baton.queue.ClaimLostException;
import dev.baton.queue.QueueItem;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;

/**
 * A claimed item. Acknowledging it is one {@code multi} on the claim's own session: check the
 * claim, delete the item, delete the claim. Sending it on the session that made the claim is what
 * makes it safe: once that session has expired, ZooKeeper refuses every request of it, so an item
 * claimed since by another consumer cannot be deleted by this one. (A {@code check} alone could
 * not tell our claim from a newer one of the same name.)
 */
final class ZkQueueItem<T> implements QueueItem<T> {
  private enum State { CLAIMED, ACKNOWLEDGED, RELEASED, LOST }

  private final Session session;
  private final ItemTakers takers;
  private final ItemTakers.Claimed claimed;
  private final String path;
  private final String serverItemPath;
  private final String serverClaimPath;
  private final Codec<T> codec;
  private final List<byte[]> values;
  private final Consumer<BatonObserver.QueueEvent> events;

  // Held through a whole acknowledgement or move, so a second ack() waits for the first's outcome.
  // A ReentrantLock rather than this object's monitor: those calls block on ZooKeeper and sleep
  // between retries, and a virtual thread blocked while holding a monitor pins its carrier
  // (JDK 21-23); waiting on a j.u.c lock unmounts it instead.
  private final ReentrantLock acting = new ReentrantLock();
  // Written under acting; read without it by isValid().
  private volatile State state = State.CLAIMED;
  // The codec is the user's code: a lock, not a monitor, so a slow one does not pin a carrier.
  private final ReentrantLock decoding = new ReentrantLock();
  private T value; // guarded by decoding
  private boolean decoded; // guarded by decoding

  ZkQueueItem(Session session, ItemTakers takers, ItemTakers.Claimed claimed, String queuePath,
      String serverQueuePath, Codec<T> codec, Consumer<BatonObserver.QueueEvent> events) {
    this.events = events;
    this.session = session;
    this.takers = takers;
    this.claimed = claimed;
    this.path = queuePath + "/" + claimed.item();
    this.serverItemPath = serverQueuePath + "/" + claimed.item();
    this.serverClaimPath = serverQueuePath + "/" + ItemNodes.CLAIMS + "/" + claimed.item();
    this.codec = codec;
    this.values = ItemNodes.unwrap(claimed.data());
  }

  @Override
  public T value() {
    decoding.lock();
    try {
      if (!decoded) {
        value = decode(path, values, codec);
        decoded = true;
      }
      return value;
    } finally {
      decoding.unlock();
    }
  }

  /** The one value among {@code values}, decoded; a clear error for anything else. */
  static <T> T decode(String path, List<byte[]> values, Codec<T> codec) {
    if (values.size() != 1) {
      throw new BatonException("The queue item " + path + " holds " + values.size() + " values in"
          + " Curator's format (written by its putMulti); Baton's queue reads items of one value."
          + " QueueItem.data() has its bytes, and ack() drops it.");
    }
    T decodedValue;
    try {
      decodedValue = codec.decode(values.get(0).clone());
    } catch (RuntimeException e) {
      throw new BatonException("Cannot decode the queue item " + path + " with " + codec + ": "
          + e.getMessage() + ". QueueItem.data() has its bytes, and ack() drops it.", e);
    }
    if (decodedValue == null) {
      throw new BatonException("The codec " + codec + " decoded the queue item " + path + " as null");
    }
    return decodedValue;
  }

  @Override
  public byte[] data() {
    return (values.size() == 1 ? values.get(0) : claimed.data()).clone();
  }

  @Override
  public String path() {
    return path;
  }

  @Override
  public int attempt() {
    return claimed.version() + 1;
  }

  @Override
  public boolean isValid() {
    Session.Handle handle = claimed.handle();
    return state == State.CLAIMED && !handle.isExpired() && handle == session.handle()
        && session.validUntilNanos() - System.nanoTime() > 0;
  }

  @Override
  public void ack() {
    acting.lock();
    try {
      acknowledge(BatonObserver.QueueEvent.ACKED);
    } finally {
      acting.unlock();
    }
  }

  /** Acknowledges the item once a dead-letter handler has taken it: for the observer, a dead letter. */
  void ackAsDeadLetter() {
    acting.lock();
    try {
      acknowledge(BatonObserver.QueueEvent.DEAD_LETTERED);
    } finally {
      acting.unlock();
    }
  }

  private void acknowledge(BatonObserver.QueueEvent as) {
    switch (state) {
      case ACKNOWLEDGED -> {
        return;
      }
      case RELEASED -> throw new IllegalStateException("The queue item " + path + " was given back"
          + " (released), so it cannot be acknowledged: another consumer may hold it now");
      case LOST -> throw new ClaimLostException(path, "its session expired");
      case CLAIMED -> { }
    }
    removeWith(List.of(Op.check(serverClaimPath, -1), Op.delete(serverItemPath, -1),
        Op.delete(serverClaimPath, -1)), 1);
    state = State.ACKNOWLEDGED;
    events.accept(as);
  }

  /**
   * Moves the item to {@code serverDeadPath} (a dead letter): created there, under the same name
   * and with the same data, in one transaction with its removal from the queue, which the
   * ensemble applies only while the claim is this session's. Blocks as {@link #ack()} does.
   *
   * @throws NodeMissingException if the dead-letter path vanished again and again meanwhile
   */
  void moveTo(String serverDeadPath) {
    acting.lock();
    try {
      moveUnderLock(serverDeadPath);
    } finally {
      acting.unlock();
    }
  }

  private void moveUnderLock(String serverDeadPath) {
    if (state != State.CLAIMED) {
      throw new IllegalStateException("The queue item " + path + " is " + state + "; only a claimed item moves");
    }
    String deadItem = serverDeadPath + "/" + claimed.item();
    List<Op> ops = List.of(Op.check(serverClaimPath, -1),
        Op.create(deadItem, claimed.data(), session.settings().aclFor(deadItem), CreateMode.PERSISTENT),
        Op.delete(serverItemPath, -1), Op.delete(serverClaimPath, -1));
    for (int round = 1; ; round++) {
      try {
        Nodes.createParentsAndWait(session, deadItem, session.settings().onClient(serverDeadPath));
        removeWith(ops, 2);
        state = State.ACKNOWLEDGED;
        events.accept(BatonObserver.QueueEvent.DEAD_LETTERED);
        return;
      } catch (NodeMissingException e) {
        if (round >= 3) {
          throw e; // the dead-letter container is removed as empty each time before the move
        }
      } catch (KeeperException e) {
        throw Errors.translate(e, session.settings().onClient(serverDeadPath));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new BatonInterruptedException("Interrupted while moving the queue item " + path
            + " to the dead letters; it stays claimed", e);
      }
    }
  }

  /**
   * Gives the item back after its handler failed: the item's data version (its count of failed
   * deliveries) grows by one in the same transaction that deletes the claim, and this client's
   * takers leave it to other clients for {@code backOff}. In the background, as {@link #release()}.
   */
  void releaseAfterFailure(Duration backOff) {
    acting.lock();
    try {
      if (state != State.CLAIMED) {
        return;
      }
      state = State.RELEASED;
    } finally {
      acting.unlock();
    }
    // The state alone needs the lock; giving back is sent in the background, after it.
    takers.holdBack(claimed.item(), backOff.toNanos());
    Redelivery.giveBackCounted(session, claimed, serverItemPath, serverClaimPath);
    events.accept(BatonObserver.QueueEvent.RELEASED);
  }

  /**
   * Removes the item with {@code ops} (the claim's check first; the item's delete at {@code
   * itemIndex}), retried across connection loss on the claim's session.
   */
  private void removeWith(List<Op> ops, int itemIndex) {
    Session.Handle handle = claimed.handle();
    RetryPolicy policy = session.settings().retryPolicy();
    boolean maybeApplied = false;
    for (int attempt = 1; ; attempt++) {
      session.checkOpen();
      if (handle.isExpired() || handle != session.handle()) {
        lost(maybeApplied, "its session expired");
        return;
      }
      if (!session.state().isConnected()) {
        if (attempt > policy.maxRetries()) {
          throw giveUp(maybeApplied, null);
        }
        pause(policy, attempt);
        continue;
      }
      try {
        handle.zk().multi(ops);
        return;
      } catch (KeeperException e) {
        switch (e.code()) {
          case CONNECTIONLOSS, OPERATIONTIMEOUT -> {
            maybeApplied = true;
            if (attempt > policy.maxRetries()) {
              throw giveUp(true, e);
            }
            pause(policy, attempt);
          }
          case SESSIONEXPIRED, SESSIONMOVED -> {
            lost(maybeApplied, "its session expired");
            return;
          }
          case NONODE -> {
            int failed = failedIndex(e.getResults());
            if (failed > 0 && failed < itemIndex) {
              throw new NodeMissingException(path, "The dead-letter path is gone", e);
            }
            if (failed == itemIndex) {
              // The item went while our claim stood: deleted by a consumer that does not claim.
              Nodes.deleteInBackground(session, handle, serverClaimPath);
              return;
            }
            if (maybeApplied) {
              return; // on this live session only our own earlier attempt deletes the claim
            }
            state = State.LOST;
            throw new ClaimLostException(path, "its claim node " + session.settings().onClient(serverClaimPath)
                + " was deleted by someone else");
          }
          default -> {
            int failed = failedIndex(e.getResults());
            // Name the node refused: the item's, or the dead letter's when moving it.
            throw Errors.translate(e, failed < 0 ? path : session.settings().onClient(ops.get(failed).getPath()));
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new BatonInterruptedException("Interrupted while acknowledging the queue item " + path
            + "; it may or may not be acknowledged (ack() again to find out)", e);
      }
    }
  }

  /**
   * The claim's session is gone. If an attempt's reply was lost, that attempt may have been
   * applied: the item's absence (or a new node in its place) says that either it was, or another
   * consumer took the item once the claim was gone and acknowledged it. Which one cannot be told
   * (the claim went with the session), so the caller hears the outcome is unknown rather than
   * "done": the chaos run found two consumers both told their acknowledgement landed.
   */
  private void lost(boolean maybeApplied, String reason) {
    state = State.LOST;
    if (maybeApplied) {
      Stat stat = Retrying.call(session, path, zk -> zk.exists(serverItemPath, false));
      if (stat == null || stat.getCzxid() != claimed.czxid()) {
        throw new OutcomeUnknownException(path, "The reply to the acknowledgement of " + path + " was"
            + " lost, then the claim went with its session (" + reason + "); the item is gone,"
            + " acknowledged either by this call or by another consumer that took it after the claim was"
            + " lost. It will not be delivered again.", null);
      }
    }
    throw new ClaimLostException(path, reason);
  }

  private ConnectionException giveUp(boolean maybeApplied, KeeperException cause) {
    if (maybeApplied) {
      return new OutcomeUnknownException(path, "Connection to ZooKeeper lost while acknowledging the"
          + " queue item " + path + ", and the retry policy gave up: it may or may not be"
          + " acknowledged. The item stays claimed while the session lives; ack() again to find out.", cause);
    }
    return new ConnectionException("Not connected to ZooKeeper at " + session.settings().connectString()
        + "; the retry policy gave up waiting, and the queue item " + path + " was not acknowledged"
        + " (it stays claimed while the session lives)", cause);
  }

  private static int failedIndex(List<OpResult> results) {
    if (results != null) {
      for (int i = 0; i < results.size(); i++) {
        if (results.get(i) instanceof OpResult.ErrorResult error
            && error.getErr() != KeeperException.Code.OK.intValue()
            && error.getErr() != KeeperException.Code.RUNTIMEINCONSISTENCY.intValue()) {
          return i;
        }
      }
    }
    return -1;
  }

  private void pause(RetryPolicy policy, int attempt) {
    try {
      java.util.concurrent.TimeUnit.NANOSECONDS.sleep(Math.max(policy.delayBefore(attempt).toNanos(), 1_000_000));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BatonInterruptedException("Interrupted while acknowledging the queue item " + path
          + "; it may or may not be acknowledged (ack() again to find out)", e);
    }
  }

  @Override
  public void release() {
    if (giveBack(true)) {
      takers.release(claimed);
      events.accept(BatonObserver.QueueEvent.RELEASED);
    }
  }

  @Override
  public void close() {
    if (giveBack(false)) {
      takers.release(claimed);
      events.accept(BatonObserver.QueueEvent.RELEASED);
    }
  }

  /**
   * Marks a claimed item released; whether it was claimed until now (then the caller gives it
   * back, outside the lock). {@code strict} refuses an acknowledged item, as release() does.
   */
  private boolean giveBack(boolean strict) {
    acting.lock();
    try {
      switch (state) {
        case ACKNOWLEDGED -> {
          if (strict) {
            throw new IllegalStateException(
                "The queue item " + path + " was acknowledged; it is no longer in the queue to give back");
          }
          return false;
        }
        case RELEASED, LOST -> {
          return false;
        }
        case CLAIMED -> {
          state = State.RELEASED;
          return true;
        }
      }
      return false;
    } finally {
      acting.unlock();
    }
  }

  @Override
  public String toString() {
    return "QueueItem[" + path + "]";
  }
}
