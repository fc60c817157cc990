package dev.baton;

/**
 * A node the operation would create exists already. The message names the path.
 */
public class NodeExistsException extends BatonException {
  private static final long serialVersionUID = 1L;
  private final String path;

  public NodeExistsException(String path, String message, Throwable cause) {
    super(message, cause);
    this.path = path;
  }

  /** The path of the operation, as the client names it. */
  public String path() {
    return path;
  }
}
