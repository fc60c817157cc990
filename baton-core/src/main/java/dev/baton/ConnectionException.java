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

  public ConnectionException(String message, Throwable cause) {
    super(message, cause);
  }
}
