package dev.baton;

/**
 * The state of a client's connection to the ensemble, as recipes and users see it.
 *
 * <pre>
 *   CONNECTED ──disconnect──▶ SUSPENDED ──same session back──▶ RECONNECTED
 *                                 │
 *                                 └─session expired, or silent past the session timeout──▶ LOST
 *   LOST ──a new session is established by the client itself──▶ RECONNECTED
 * </pre>
 *
 * <p>The Redis client ({@code RedisBaton.connectionState()}) reports the same states: SUSPENDED
 * when a connection that carries lock commands drops, LOST once it has stayed down for the lease
 * TTL (its leases cannot have been renewed in time), RECONNECTED when it is back.
 */
public enum ConnectionState {
  /** The first connection of this client is established. */
  CONNECTED,
  /**
   * The connection dropped. The session may still be alive on the ensemble, so locks held may
   * still be held; but nothing can be trusted until the state moves on.
   */
  SUSPENDED,
  /** Connected again after {@link #SUSPENDED} or {@link #LOST}. */
  RECONNECTED,
  /**
   * The session expired, or the client has been unable to reach the ensemble for longer than the
   * session timeout, so it presumes it expired. Every ephemeral node of the session (every lock
   * held) must be considered gone. The client keeps trying and gets a new session by itself.
   */
  LOST;

  /** Whether the client can talk to the ensemble in this state. */
  public boolean isConnected() {
    return this == CONNECTED || this == RECONNECTED;
  }
}
