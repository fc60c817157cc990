package dev.baton;

import java.time.Duration;

/**
 * A {@link DoubleBarrier} member did not get through {@code enter} or {@code leave} within the
 * time the caller allowed. The member is out of the barrier either way: its node has been deleted
 * (or will be as soon as the connection allows). The message says how many members were in the
 * barrier when the member gave up.
 */
public class BarrierTimeoutException extends BatonException {
  private static final long serialVersionUID = 1L;
  private final String path;
  private final Duration timeout;

  public BarrierTimeoutException(String path, Duration timeout, String waitingFor) {
    super("Timed out after " + dev.baton.internal.Durations.human(timeout) + " " + waitingFor);
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
