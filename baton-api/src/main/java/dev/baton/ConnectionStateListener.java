package dev.baton;

/**
 * Told of each change of a client's {@link ConnectionState}, in order, never on ZooKeeper's event
 * thread.
 *
 * <p>Order with the recipes' listeners: a connection-state listener hears {@link
 * ConnectionState#SUSPENDED}, {@link ConnectionState#RECONNECTED} or {@link ConnectionState#LOST}
 * before any recipe listener hears the consequence of that same change (a lease turning SUSPECT or
 * HELD again, a leader latch saying "not leader" or "leader again"), as with Curator. The order is
 * kept among listeners that run on one single-threaded executor, such as the client's notice
 * thread that connection-state, lease and leadership listeners use by default; listeners given
 * other executors run concurrently with them, with no order between them (data listeners, such
 * as a cache's, run on the client's event executor by default, so they are not ordered with
 * connection-state listeners). The state
 * the recipes report ({@code Lease.state()}, {@code hasLeadership()}) changes at once, whatever
 * the listeners' order.
 */
@FunctionalInterface
public interface ConnectionStateListener {
  void stateChanged(ConnectionState newState);
}
