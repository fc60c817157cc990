package dev.baton;

/**
 * The ensemble refused an operation because the ACL of the node (or of its parent, for a create
 * or a delete) does not grant this client's identity the permission it needs. Nothing was
 * changed, and nothing is retried: the same identity would be refused again. See {@link
 * AclProvider} for which permission each operation needs, and {@link Baton.Builder#digestAuth}
 * for the identity a client presents.
 */
public class NotAuthorizedException extends BatonException {
  private static final long serialVersionUID = 1L;
  private final String path;

  public NotAuthorizedException(String path, Throwable cause) {
    super("Not authorized for " + path + ": the node's ACL (or its parent's, to create or delete a"
        + " node below it) refuses this client's identity. Connect with an identity the ACL grants"
        + " (Baton.builder().digestAuth(user, password)), or have the ACL changed", cause);
    this.path = path;
  }

  /** The path the refused operation was on. */
  public String path() {
    return path;
  }
}
