package dev.baton.internal.engine;

import dev.baton.internal.lease.LeaseLevel;
import dev.baton.internal.session.GuardedLease;
import java.util.Objects;

/** One level of a held ZooKeeper lock, as handed to the caller: revocable and guardable too. */
final class LeaseHandle extends LeaseLevel implements GuardedLease {
  private final HeldLock lock;

  LeaseHandle(HeldLock lock) {
    super(lock);
    this.lock = lock;
  }

  @Override
  public void makeRevocable(dev.baton.lock.RevocationListener listener) {
    Objects.requireNonNull(listener, "listener");
    lock.watchForRevocation(() -> listener.revocationRequested(this));
  }

  @Override
  public org.apache.zookeeper.Op guard() {
    if (isClosed()) {
      throw new IllegalStateException("The lease on " + path() + " is released; a guard of it would"
          + " fail every transaction");
    }
    return lock.guard();
  }
}
