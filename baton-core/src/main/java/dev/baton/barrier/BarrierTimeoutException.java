package dev.baton.barrier;

import dev.baton.WaitTimeoutException;
import java.time.Duration;

/**
 * A {@link DoubleBarrier} member did not get through {@code enter} or {@code leave} within the
 * time the caller allowed. The member is out of the barrier either way: its node has been deleted
 * (or will be as soon as the connection allows). The message says how many members were in the
 * barrier when the member gave up.
 */
public class BarrierTimeoutException extends WaitTimeoutException {
  private static final long serialVersionUID = 1L;

  public BarrierTimeoutException(String path, Duration timeout, String waitingFor) {
    super(path, timeout, waitingFor);
  }
}
