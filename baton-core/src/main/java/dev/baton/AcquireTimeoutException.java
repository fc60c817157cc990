package dev.baton;

import java.time.Duration;

/**
 * A lock or permit was not acquired within the time the caller allowed. Nothing is left behind:
 * the waiter's node has been deleted (or will be as soon as the connection allows).
 */
public class AcquireTimeoutException extends BatonException {
  private static final long serialVersionUID = 1L;
  private final String path;
  private final Duration timeout;

  public AcquireTimeoutException(String path, Duration timeout) {
    super("Timed out after " + dev.baton.internal.Durations.human(timeout) + " waiting for " + path);
    this.path = path;
    this.timeout = timeout;
  }

  public String path() {
    return path;
  }

  public Duration timeout() {
    return timeout;
  }
}
