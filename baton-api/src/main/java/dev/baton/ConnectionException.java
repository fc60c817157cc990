package dev.baton;

/**
 * The ensemble could not be reached: at connect time within the connection timeout, or for an
 * operation after the retry policy gave up while the connection was down.
 */
public class ConnectionException extends BatonException {
  private static final long serialVersionUID = 1L;

  public ConnectionException(String message) {
    super(message);
  }

  /**
   * No server of {@code connectString} answered within {@code timeout}; {@code advice} (may be
   * empty) is added to the message after the usual question.
   */
  public ConnectionException(String connectString, java.time.Duration timeout, String advice) {
    super("Could not connect to ZooKeeper at " + connectString + " within " + DurationText.human(timeout)
        + "; is the ensemble running and reachable?" + advice);
  }

  public ConnectionException(String message, Throwable cause) {
    super(message, cause);
  }
}
