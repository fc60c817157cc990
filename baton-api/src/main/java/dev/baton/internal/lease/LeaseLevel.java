package dev.baton.internal.lease;

import dev.baton.lock.Lease;
import dev.baton.lock.LeaseListener;
import dev.baton.lock.LeaseState;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One level of a held lock, as handed to the caller: it reads as its {@link Holding} until it is
 * closed, then as released. Closing is idempotent and gives up exactly one level.
 */
public class LeaseLevel implements Lease {
  private final Holding holding;
  private final AtomicBoolean closed = new AtomicBoolean();

  public LeaseLevel(Holding holding) {
    this.holding = Objects.requireNonNull(holding, "holding");
  }

  protected Holding holding() {
    return holding;
  }

  protected boolean isClosed() {
    return closed.get();
  }

  @Override
  public String path() {
    return holding.path();
  }

  @Override
  public long fencingToken() {
    return holding.token();
  }

  @Override
  public LeaseState state() {
    return closed.get() ? LeaseState.RELEASED : holding.state();
  }

  @Override
  public boolean isValid() {
    return state().isValid();
  }

  @Override
  public Instant validUntil() {
    return closed.get() ? Instant.now().minusNanos(1) : holding.validUntil();
  }

  @Override
  public void addListener(LeaseListener listener) {
    addListener(listener, null);
  }

  @Override
  public void addListener(LeaseListener listener, Executor executor) {
    Objects.requireNonNull(listener, "listener");
    holding.addListener(this, listener, executor == null ? holding.defaultExecutor() : executor);
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      holding.exit();
    }
  }

  @Override
  public String toString() {
    return "Lease[" + holding + "]";
  }
}
