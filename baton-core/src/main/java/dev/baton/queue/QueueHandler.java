package dev.baton.queue;

/**
 * Work to do with each item of a {@link DistributedQueue#consume consumer}: return to acknowledge
 * the item, throw to give it back.
 *
 * @param <T> the type of the items
 */
@FunctionalInterface
public interface QueueHandler<T> {

  /** Processes one item; may take as long as it needs. */
  void handle(T item) throws Exception;
}
