package dev.baton.internal.session;

import dev.baton.ConnectionState;

/**
 * Internal listener of a {@link Session}: recipes' waiters and leases. Called on ZooKeeper's
 * event thread (or the session's timer), so implementations must only update state and send
 * asynchronous requests, never block.
 */
public interface SessionObserver {

  /** The connection moved to {@code state}; {@code handle} is the session it concerns. */
  void connectionStateChanged(ConnectionState state, Session.Handle handle);

  /** The client is closing. */
  void sessionClosed();
}
