package dev.baton.internal.engine;

import dev.baton.internal.session.GuardedLease;
import dev.baton.lock.LeaseListener;
import dev.baton.lock.LeaseState;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

/** One level of a held lock, as handed to the caller; closing it is idempotent. */
final class LeaseHandle implements GuardedLease {
  private final HeldLock lock;
  private final AtomicBoolean closed = new AtomicBoolean();

  LeaseHandle(HeldLock lock) {
    this.lock = lock;
  }

  @Override
  public String path() {
    return lock.path();
  }

  @Override
  public long fencingToken() {
    return lock.token();
  }

  @Override
  public LeaseState state() {
    return closed.get() ? LeaseState.RELEASED : lock.state();
  }

  @Override
  public boolean isValid() {
    return state().isValid();
  }

  @Override
  public Instant validUntil() {
    return closed.get() ? Instant.now().minusNanos(1) : lock.validUntil();
  }

  @Override
  public void addListener(LeaseListener listener) {
    addListener(listener, null);
  }

  @Override
  public void addListener(LeaseListener listener, Executor executor) {
    Objects.requireNonNull(listener, "listener");
    lock.addListener(this, listener, executor == null ? lock.defaultExecutor() : executor);
  }

  @Override
  public void makeRevocable(dev.baton.lock.RevocationListener listener) {
    Objects.requireNonNull(listener, "listener");
    lock.watchForRevocation(() -> listener.revocationRequested(this));
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      lock.exit();
    }
  }

  @Override
  public org.apache.zookeeper.Op guard() {
    if (closed.get()) {
      throw new IllegalStateException("The lease on " + path() + " is released; a guard of it would"
          + " fail every transaction");
    }
    return lock.guard();
  }

  @Override
  public String toString() {
    return "Lease[" + lock + "]";
  }
}
