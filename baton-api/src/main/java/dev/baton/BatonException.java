package dev.baton;

/**
 * Root of Baton's unchecked exceptions. Messages name the path, the connect string or the
 * argument involved, and say what the caller can do about it.
 */
public class BatonException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public BatonException(String message) {
    super(message);
  }

  public BatonException(String message, Throwable cause) {
    super(message, cause);
  }
}
