package dev.baton.internal.session;

import dev.baton.lock.Lease;
import java.util.List;
import org.apache.zookeeper.Op;

/**
 * A lease that stands on ZooKeeper nodes, and so can guard a transaction with a {@code check} of
 * each: every lease of Baton's ZooKeeper recipes. It is not part of the lock API, which other
 * backends implement too; {@code Baton.guard(lease)} and {@code Baton.guards(lease)} reach it.
 */
public interface GuardedLease extends Lease {

  /**
   * The check of the one node this lease stands on.
   *
   * @throws IllegalStateException if the lease was closed
   * @throws UnsupportedOperationException if it stands on several nodes
   */
  Op guard();

  /**
   * One check per node this lease stands on.
   *
   * @throws IllegalStateException if the lease was closed
   */
  default List<Op> guards() {
    return List.of(guard());
  }

  /** {@code lease} as one that has nodes to guard with, or an error that says it has none. */
  static GuardedLease of(Lease lease) {
    java.util.Objects.requireNonNull(lease, "lease");
    if (lease instanceof GuardedLease guarded) {
      return guarded;
    }
    throw new IllegalArgumentException("The lease " + lease + " on " + lease.path()
        + " stands on no ZooKeeper node of a Baton client (another backend's lease, or one written"
        + " outside Baton), so no transaction can be guarded by it");
  }
}
