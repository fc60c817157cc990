package dev.baton;

/** Told of each change of a client's {@link ConnectionState}, in order, never on ZooKeeper's event thread. */
@FunctionalInterface
public interface ConnectionStateListener {
  void stateChanged(ConnectionState newState);
}
