package dev.baton.lock;

/**
 * Where a {@link Lease} stands. {@code HELD -> SUSPECT -> HELD} may repeat while the session
 * survives short disconnects; {@link #LOST} and {@link #RELEASED} are final.
 */
public enum LeaseState {
  /** Held, and the client is in contact with the ensemble. */
  HELD,
  /**
   * The connection is suspended: the session (and so the lease) may still be alive, but no
   * decision should be taken on it. Returns to {@link #HELD} if the same session reconnects.
   */
  SUSPECT,
  /**
   * The session expired or is presumed expired: another process may hold the lock now or soon.
   * Stop using whatever the lease protects.
   */
  LOST,
  /** Released by its holder. */
  RELEASED;

  /** Whether a holder may still act on the lease: only in {@link #HELD}. */
  public boolean isValid() {
    return this == HELD;
  }
}
