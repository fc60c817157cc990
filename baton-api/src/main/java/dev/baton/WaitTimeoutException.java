package dev.baton;

import java.time.Duration;

/**
 * A wait ran out of the time the caller allowed: for a lock or permits, for a barrier. Catch it
 * to handle every such timeout alike; its subclasses say what was waited for. What the wait had
 * put on the ensemble is gone, or will be as soon as the connection allows.
 */
public class WaitTimeoutException extends BatonException {
  private static final long serialVersionUID = 1L;
  private final String path;
  private final Duration timeout;

  /** The message reads "Timed out after {@code timeout} {@code waitingFor}". */
  public WaitTimeoutException(String path, Duration timeout, String waitingFor) {
    super("Timed out after " + DurationText.human(timeout) + " " + waitingFor);
    this.path = path;
    this.timeout = timeout;
  }

  /** The path of the recipe that was waited for. */
  public String path() {
    return path;
  }

  /** The time the caller allowed. */
  public Duration timeout() {
    return timeout;
  }
}
