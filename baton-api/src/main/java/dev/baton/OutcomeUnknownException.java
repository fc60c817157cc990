package dev.baton;

/**
 * The connection was lost (or the session expired) after a write was sent and before its reply
 * came, and Baton cannot tell whether the ensemble applied it. Nothing was re-sent blindly: the
 * write was applied at most once. Read the data again to decide what to do.
 *
 * <p>Extends {@link ConnectionException}, so code that treats every connection failure alike
 * keeps working; catch this one to tell "maybe applied" from "certainly not applied".
 */
public class OutcomeUnknownException extends ConnectionException {
  private static final long serialVersionUID = 1L;
  private final String path;

  public OutcomeUnknownException(String path, String message, Throwable cause) {
    super(message, cause);
    this.path = path;
  }

  /** The path the write was about, as the caller gave it; for a transaction, its paths in brackets. */
  public String path() {
    return path;
  }
}
