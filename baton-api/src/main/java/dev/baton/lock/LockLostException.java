package dev.baton.lock;

import dev.baton.BatonException;

/**
 * A lock was given back after its lease had been lost (the session expired, or the backend's
 * lease lapsed), so for some time before this another process may have held it too. Whatever the
 * lock protected since the loss may have been changed by both; the local hold is released all the
 * same. {@link MutexLock#unlock()} throws it, as Spring Integration's Redis registry throws on an
 * expired key, so that the loss is not silent.
 */
public class LockLostException extends BatonException {
  private static final long serialVersionUID = 1L;
  private final String path;

  public LockLostException(String path) {
    super("The lock on " + path + " was lost before it was unlocked (session expired or lease"
        + " lapsed): another process may have held it meanwhile, so check what it protected.");
    this.path = path;
  }

  /** The lock's path, as the caller gave it. */
  public String path() {
    return path;
  }
}
