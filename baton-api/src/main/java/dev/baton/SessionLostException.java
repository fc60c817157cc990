package dev.baton;

import dev.baton.lock.LeaseState;

/**
 * The ZooKeeper session that an operation depended on expired (or was presumed lost). Ephemeral
 * nodes of that session are gone or about to go; leases bound to it are {@link LeaseState#LOST}.
 */
public class SessionLostException extends BatonException {
  private static final long serialVersionUID = 1L;

  public SessionLostException(String message) {
    super(message);
  }
}
