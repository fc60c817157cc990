package dev.baton.lock;

import dev.baton.WaitTimeoutException;
import java.time.Duration;

/**
 * A lock or permit was not acquired within the time the caller allowed. Nothing is left behind:
 * the waiter's node has been deleted (or will be as soon as the connection allows).
 */
public class AcquireTimeoutException extends WaitTimeoutException {
  private static final long serialVersionUID = 1L;

  public AcquireTimeoutException(String path, Duration timeout) {
    super(path, timeout, "waiting for " + path);
  }
}
