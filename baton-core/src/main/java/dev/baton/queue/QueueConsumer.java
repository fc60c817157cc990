package dev.baton.queue;

import dev.baton.BatonInterruptedException;
import dev.baton.FailureListener;
import java.util.Optional;

/**
 * A running {@link DistributedQueue#consume consumer}: it takes items one after another and hands
 * them to its handler until closed, or until its client is closed.
 *
 * <p>A failing handler's item is given back at once, its count of failed deliveries grown by one,
 * to other clients' consumers first: this client leaves it alone through a back-off. After the
 * last attempt {@link ConsumerOptions} allows, counted across consumers, it becomes a dead letter.
 * The consumer goes on with other items meanwhile. A failed acknowledgement
 * (the claim was lost with the session) is logged and the consumer goes on. Connection loss and
 * session expiry are ridden out. The consumer stops by itself only when its client closes, or
 * when taking or acknowledging fails for a reason retrying cannot cure (a node's ACL refusing
 * this client, say): {@link #isRunning()} turns false, {@link #failure()} says why, and the
 * failure listeners are told.
 */
public interface QueueConsumer extends AutoCloseable {

  /** Whether the consumer still takes items. */
  boolean isRunning();

  /**
   * Why the consumer stopped by itself, if it did: a {@link dev.baton.ClientClosedException}, or
   * the error retrying could not cure (a {@link dev.baton.NotAuthorizedException} naming the
   * path, say). Empty while running and after {@link #close()}. Local state.
   */
  Optional<RuntimeException> failure();

  /**
   * Tells {@code listener}, on the client's event executor and at most once, when the consumer
   * stops by itself for the reason {@link #failure()} then returns; at once if it already has.
   */
  void addFailureListener(FailureListener listener);

  /**
   * Stops taking items, withdraws the waiting take, and waits for the item in hand (if any) to be
   * handled and acknowledged or given back; called from the handler itself, it does not wait.
   * Idempotent.
   *
   * @throws BatonInterruptedException if interrupted while waiting for the handler (the consumer
   *     is stopped all the same)
   */
  @Override
  void close();
}
