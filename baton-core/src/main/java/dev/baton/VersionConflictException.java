package dev.baton;

/**
 * A write that named the version it expected found the node at another version: another client changed it in between. Read it again and decide anew; nothing was written.
 */
public class VersionConflictException extends BatonException {
  private static final long serialVersionUID = 1L;
  private final String path;

  public VersionConflictException(String path, String message, Throwable cause) {
    super(message, cause);
    this.path = path;
  }

  /** The path of the operation, as the client names it. */
  public String path() {
    return path;
  }
}
