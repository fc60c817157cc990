package dev.baton.internal.redis;

import dev.baton.lock.Lease;
import dev.baton.lock.LeaseListener;
import dev.baton.lock.LeaseState;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

/** One level of a held Redis lock, as handed to the caller; closing it is idempotent. */
final class RedisLease implements Lease {
  private final Tenure tenure;
  private final AtomicBoolean closed = new AtomicBoolean();

  RedisLease(Tenure tenure) {
    this.tenure = tenure;
  }

  @Override
  public String path() {
    return tenure.path();
  }

  @Override
  public long fencingToken() {
    return tenure.token();
  }

  @Override
  public LeaseState state() {
    return closed.get() ? LeaseState.RELEASED : tenure.state();
  }

  @Override
  public boolean isValid() {
    return state().isValid();
  }

  @Override
  public Instant validUntil() {
    return closed.get() ? Instant.now().minusNanos(1) : tenure.validUntil();
  }

  @Override
  public void addListener(LeaseListener listener) {
    addListener(listener, null);
  }

  @Override
  public void addListener(LeaseListener listener, Executor executor) {
    Objects.requireNonNull(listener, "listener");
    tenure.addListener(this, listener, executor);
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      tenure.exit();
    }
  }

  @Override
  public String toString() {
    return "Lease[redis " + tenure + "]";
  }
}
