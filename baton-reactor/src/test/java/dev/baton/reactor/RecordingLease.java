package dev.baton.reactor;

import dev.baton.lock.Lease;
import dev.baton.lock.LeaseListener;
import dev.baton.lock.LeaseState;
import java.time.Instant;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

/** A lease that only counts how often it was closed: for the races no server can be made to lose. */
final class RecordingLease implements Lease {
  private final AtomicInteger closes = new AtomicInteger();

  int closes() {
    return closes.get();
  }

  @Override
  public String path() {
    return "/recorded";
  }

  @Override
  public long fencingToken() {
    return 1;
  }

  @Override
  public LeaseState state() {
    return closes.get() == 0 ? LeaseState.HELD : LeaseState.RELEASED;
  }

  @Override
  public boolean isValid() {
    return closes.get() == 0;
  }

  @Override
  public Instant validUntil() {
    return Instant.MAX;
  }

  @Override
  public void addListener(LeaseListener listener) {}

  @Override
  public void addListener(LeaseListener listener, Executor executor) {}

  @Override
  public void close() {
    closes.incrementAndGet();
  }
}
