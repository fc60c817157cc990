package dev.baton.queue;

import dev.baton.BatonException;

/**
 * An item taken from a {@link DistributedQueue} could not be acknowledged because its claim is
 * gone: the claimant's session expired (or the claim node was deleted), so another consumer may
 * hold the item now. Nothing was deleted; the item will be, or has been, delivered again.
 */
public class ClaimLostException extends BatonException {
  private static final long serialVersionUID = 1L;
  private final String path;

  public ClaimLostException(String path, String reason) {
    super("The claim on queue item " + path + " is lost (" + reason + "), so it was not acknowledged"
        + " and nothing was deleted; another consumer may hold the item now and it will be"
        + " delivered again. Make the work idempotent, or check QueueItem.isValid() before"
        + " committing it.");
    this.path = path;
  }

  /** The item's path, as a client path. */
  public String path() {
    return path;
  }
}
