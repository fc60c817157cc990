package dev.baton.internal.leader;

import dev.baton.internal.leadership.Leadership;
import dev.baton.internal.session.GuardedLease;
import dev.baton.lock.Lease;
import org.apache.zookeeper.Op;

/** A ZooKeeper leadership: guards a transaction with a check of the leader's node. */
final class ZkLeadership extends Leadership implements GuardedLease {
  ZkLeadership(Lease lock, Runnable beforeRelease, Runnable afterRelease) {
    super(lock, beforeRelease, afterRelease);
  }

  /** The node's check; refused once the lock's lease is released (this leadership closed). */
  @Override
  public Op guard() {
    return GuardedLease.of(lock()).guard();
  }
}
