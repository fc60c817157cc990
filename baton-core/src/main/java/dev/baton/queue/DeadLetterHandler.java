package dev.baton.queue;

/**
 * Takes the items a consumer gives up on, instead of the dead-letter path. The item leaves the
 * queue once this returns (an acknowledgement, so a consumer that dies in between hands the item
 * to the handler again: at least once). If it throws, the item is given back, counted: other
 * clients' consumers may take it at once (and handle it once more), this client after the longest
 * back-off.
 */
@FunctionalInterface
public interface DeadLetterHandler {
  void handle(DeadLetter letter) throws Exception;
}
