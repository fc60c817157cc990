package dev.baton.queue;

import dev.baton.BatonException;
import dev.baton.ConnectionException;
import dev.baton.OutcomeUnknownException;
import dev.baton.RetryPolicy;
import dev.baton.lock.Lease;

/**
 * An item taken from a {@link DistributedQueue}, claimed by this client until it is acknowledged
 * or given back. While claimed, no other consumer gets it. Thread-safe; it need not be finished on
 * the thread that took it.
 *
 * <p>Finish every item: {@link #ack()} when its work is done, or {@link #release()} (or {@link
 * #close()}) to give it back. An item neither acknowledged nor given back stays claimed until this
 * client's session ends, and then goes to another consumer.
 *
 * @param <T> the type of the value
 */
public interface QueueItem<T> extends AutoCloseable {

  /**
   * The value, decoded by the queue's codec on first call.
   *
   * @throws BatonException naming the item's path if the codec cannot decode its bytes (or the
   *     item holds several values, written by Curator's {@code putMulti}); {@link #data()} has
   *     them, and {@link #ack()} drops the item
   */
  T value();

  /** The item's bytes as the codec wrote them (Curator's item format removed); a copy. */
  byte[] data();

  /** The item's node, as a client path: {@code <queue path>/queue-<sequence>}. */
  String path();

  /**
   * Which delivery of the item this is: 1 the first time, and one more for each earlier delivery
   * that a {@linkplain DistributedQueue#consume consumer}'s handler failed (see {@link
   * ConsumerOptions}). Kept with the item on the ensemble (its node's data version), so it counts
   * across consumers and clients. Local state, read when the item was taken.
   */
  int attempt();

  /**
   * Whether the claim can still be trusted: not finished, and its session neither expired nor
   * silent past the session timeout (as {@link Lease#isValid()}, but {@code true} while the
   * connection is only suspended). A long job may look before committing what it did; only
   * {@link #ack()} is decided by the ensemble.
   */
  boolean isValid();

  /**
   * Removes the item from the queue for good, together with its claim, in one transaction that
   * the ensemble applies only while the claim is this session's. Blocks until the ensemble
   * answers. Calling it again after it succeeded does nothing.
   *
   * <p>Connection loss: waits for the connection as the client's {@link RetryPolicy} allows and
   * sends again (a repeat after a lost reply finds the claim gone and knows the first one was
   * applied). Session expiry: the claim is gone with the session and another consumer may hold
   * the item, so nothing is deleted and {@link ClaimLostException} is thrown; if an earlier
   * attempt's reply was lost, the item is looked up first, and if it is gone {@link
   * OutcomeUnknownException} is thrown: this call's acknowledgement or another consumer's (one that
   * took the item once the claim was gone) removed it, and which cannot be told. No timeout of its
   * own.
   *
   * @throws ClaimLostException if the claim was lost (the item will be, or was, delivered again)
   * @throws IllegalStateException if the item was given back
   * @throws OutcomeUnknownException if the retry policy gave up after a reply was lost
   * @throws ConnectionException if the retry policy gave up before anything was sent
   */
  void ack();

  /**
   * Gives the item back for another consumer (or this one) to take; it keeps its place in the
   * queue. Returns at once: the claim is deleted in the background, across connection loss, and
   * at worst goes with the session. Idempotent.
   *
   * @throws IllegalStateException if the item was acknowledged
   */
  void release();

  /** {@link #release()} unless acknowledged; idempotent, never throws. */
  @Override
  void close();
}
