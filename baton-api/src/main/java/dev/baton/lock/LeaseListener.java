package dev.baton.lock;

/**
 * Told of each change of a {@link Lease}'s state. {@link LeaseState#SUSPECT} and {@link
 * LeaseState#LOST} arrive before another client can be granted the same lock: the ZooKeeper client
 * notices silence after two thirds of the session timeout, while the ensemble only ends the session
 * (and deletes the lock node) after the whole session timeout.
 */
@FunctionalInterface
public interface LeaseListener {
  void stateChanged(Lease lease, LeaseState newState);
}
