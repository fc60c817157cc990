package dev.baton.lock;

import dev.baton.BatonException;

/**
 * A {@link FencedResource} refused a write: its fencing token is lower than one the resource has
 * already accepted, so it comes from a holder whose lease was lost and whose lock has since been
 * granted to someone else. The write was not run.
 */
public class StaleTokenException extends BatonException {
  private static final long serialVersionUID = 1L;
  private final String resource;
  private final long token;
  private final long highestToken;

  public StaleTokenException(String resource, long token, long highestToken) {
    super("Stale fencing token " + token + " for " + resource + ": a write with token " + highestToken
        + " was already accepted, so the lease that gave " + token + " was lost and the lock has"
        + " passed to a newer holder; the write was refused");
    this.resource = resource;
    this.token = token;
    this.highestToken = highestToken;
  }

  /** The name of the resource that refused the write. */
  public String resource() {
    return resource;
  }

  /** The refused token. */
  public long token() {
    return token;
  }

  /** The highest token the resource had accepted. */
  public long highestToken() {
    return highestToken;
  }
}
