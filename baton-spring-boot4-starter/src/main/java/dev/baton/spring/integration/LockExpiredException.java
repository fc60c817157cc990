package dev.baton.spring.integration;

import java.time.Duration;

/**
 * Thrown by {@link BatonDistributedLock#unlock()} when the hold's time-to-live ran out before the
 * unlock and the registry released the lock: what the lock protected may have been changed by
 * another holder since. The unlock itself has done its work (the thread holds nothing).
 */
public class LockExpiredException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  /** For the lock at {@code path}, whose time-to-live was {@code ttl}. */
  public LockExpiredException(String path, Duration ttl) {
    super("the lock " + path + " was released by its registry when its time-to-live of " + ttl
        + " ran out, before this unlock; another holder may have had it since");
  }
}
