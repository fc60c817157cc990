package dev.baton.internal.leadership;

import dev.baton.lock.Lease;
import dev.baton.lock.LeaseListener;
import dev.baton.lock.LeaseState;
import dev.baton.lock.RevocationListener;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One term's leadership as handed to listeners, the task and {@code leadership()}: the lock's
 * lease, except that closing it steps down through the recipe, which tells its listeners of the
 * loss before the lock is released (so before the next leader can be granted it). A backend may
 * extend it with its own views of the lock ({@link ElectionQueue#leadership}).
 */
public class Leadership implements Lease {
  private final Lease lock;
  private final Runnable beforeRelease;
  private final Runnable afterRelease;
  private final AtomicBoolean closed = new AtomicBoolean();

  /**
   * On {@link #close()}, {@code beforeRelease} tells of the loss, the lock is released, then
   * {@code afterRelease} runs (a latch joins again there: behind whoever is granted the lock next).
   */
  public Leadership(Lease lock, Runnable beforeRelease, Runnable afterRelease) {
    this.lock = Objects.requireNonNull(lock, "lock");
    this.beforeRelease = beforeRelease;
    this.afterRelease = afterRelease;
  }

  /** Whether this was closed through {@link #close()} (by the recipe or its user), not by the backend. */
  final boolean isClosed() {
    return closed.get();
  }

  /** The lock's own lease. */
  public final Lease lock() {
    return lock;
  }

  @Override
  public final String path() {
    return lock.path();
  }

  @Override
  public final long fencingToken() {
    return lock.fencingToken();
  }

  @Override
  public final LeaseState state() {
    return closed.get() ? LeaseState.RELEASED : lock.state();
  }

  @Override
  public final boolean isValid() {
    return state().isValid();
  }

  @Override
  public final Instant validUntil() {
    return closed.get() ? Instant.now().minusNanos(1) : lock.validUntil();
  }

  /** The lock's revocation requests, reported as this leadership's. */
  @Override
  public void makeRevocable(RevocationListener listener) {
    Objects.requireNonNull(listener, "listener");
    lock.makeRevocable(l -> listener.revocationRequested(this));
  }

  @Override
  public final void addListener(LeaseListener listener) {
    Objects.requireNonNull(listener, "listener");
    lock.addListener((l, state) -> listener.stateChanged(this, state));
  }

  @Override
  public final void addListener(LeaseListener listener, Executor executor) {
    Objects.requireNonNull(listener, "listener");
    lock.addListener((l, state) -> listener.stateChanged(this, state), Objects.requireNonNull(executor, "executor"));
  }

  /** Steps down: listeners are told, then the lock is released. Idempotent; never throws. */
  @Override
  public final void close() {
    if (closed.compareAndSet(false, true)) {
      try {
        beforeRelease.run();
      } finally {
        lock.close();
      }
      afterRelease.run();
    }
  }

  @Override
  public String toString() {
    return "Leadership[" + lock + "]";
  }
}
