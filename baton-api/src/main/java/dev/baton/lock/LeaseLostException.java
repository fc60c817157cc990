package dev.baton.lock;

import dev.baton.BatonException;

/**
 * A write guarded by a lease ({@code Baton.guard(lease)} on ZooKeeper) was refused: by the
 * ensemble because the lease's lock node no longer exists (its session expired or the lease was
 * released), or by the client before sending because the lease was no longer HELD or SUSPECT
 * (released or lost; with local hand-over or caching its node may serve the next holder). Another
 * holder may hold the lock now. Nothing of the transaction was applied.
 */
public class LeaseLostException extends BatonException {
  private static final long serialVersionUID = 1L;
  private final String path;
  private final String nodePath;

  public LeaseLostException(String path, String nodePath) {
    super("The lease on " + path + " is lost: its lock node " + nodePath + " is gone (session expired"
        + " or lease released), so the guarded transaction was not applied; another client may hold"
        + " the lock now. Acquire it again and re-read before writing.");
    this.path = path;
    this.nodePath = nodePath;
  }

  /** The same refusal, told in {@code message}. */
  public LeaseLostException(String path, String nodePath, String message) {
    super(message);
    this.path = path;
    this.nodePath = nodePath;
  }

  /** The lock's path, as the caller gave it. */
  public String path() {
    return path;
  }

  /** The lease's node that the guard found missing, as a client path. */
  public String nodePath() {
    return nodePath;
  }
}
