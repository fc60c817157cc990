package dev.baton.internal;

import dev.baton.Lease;
import dev.baton.LeaseListener;
import dev.baton.LeaseState;
import dev.baton.MultiLock;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

/** Leases held together: as valid as the least valid part, released together. */
final class CompositeLease implements MultiLock.MultiLease {
  private final List<Lease> parts;
  private final AtomicBoolean closed = new AtomicBoolean();

  CompositeLease(List<Lease> parts) {
    this.parts = List.copyOf(parts);
  }

  @Override
  public List<Lease> parts() {
    return parts;
  }

  @Override
  public String path() {
    return parts.stream().map(Lease::path).collect(Collectors.joining(",", "[", "]"));
  }

  /** The largest part's token: it grows from holder to holder of the same set of locks. */
  @Override
  public long fencingToken() {
    return parts.stream().mapToLong(Lease::fencingToken).max().orElseThrow();
  }

  @Override
  public LeaseState state() {
    if (closed.get()) {
      return LeaseState.RELEASED;
    }
    LeaseState worst = LeaseState.HELD;
    for (Lease part : parts) {
      LeaseState state = part.state();
      if (state.ordinal() > worst.ordinal()) {
        worst = state; // HELD < SUSPECT < LOST < RELEASED
      }
    }
    return worst;
  }

  @Override
  public boolean isValid() {
    return state().isValid();
  }

  @Override
  public Instant validUntil() {
    return parts.stream().map(Lease::validUntil).min(Instant::compareTo).orElseThrow();
  }

  @Override
  public void addListener(LeaseListener listener) {
    parts.forEach(part -> part.addListener((p, s) -> listener.stateChanged(this, state())));
  }

  @Override
  public void addListener(LeaseListener listener, Executor executor) {
    parts.forEach(part -> part.addListener((p, s) -> listener.stateChanged(this, state()), executor));
  }

  /** Releases every part, last taken first. */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      for (int i = parts.size() - 1; i >= 0; i--) {
        parts.get(i).close();
      }
    }
  }

  @Override
  public String toString() {
    return "MultiLease" + parts;
  }
}
