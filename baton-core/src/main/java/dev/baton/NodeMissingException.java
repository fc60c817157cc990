package dev.baton;

/**
 * No node exists at the path an operation needed: it was never created, or was deleted (by its owner, by another client, or with its session). The message names the path.
 */
public class NodeMissingException extends BatonException {
  private static final long serialVersionUID = 1L;
  private final String path;

  public NodeMissingException(String path, String message, Throwable cause) {
    super(message, cause);
    this.path = path;
  }

  /** The path of the operation, as the client names it. */
  public String path() {
    return path;
  }
}
