package dev.baton.queue;

import dev.baton.BatonInterruptedException;

/**
 * A running {@link DistributedQueue#consume consumer}: it takes items one after another and hands
 * them to its handler until closed, or until its client is closed.
 *
 * <p>A failing handler gives its item back and the consumer goes on. A failed acknowledgement
 * (the claim was lost with the session) is logged and the consumer goes on. The consumer stops by
 * itself only when its client closes, or if taking fails for a reason retrying cannot cure (such
 * as a node ACL refusing this client); {@link #isRunning()} then turns false and the error is
 * logged.
 */
public interface QueueConsumer extends AutoCloseable {

  /** Whether the consumer still takes items. */
  boolean isRunning();

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
