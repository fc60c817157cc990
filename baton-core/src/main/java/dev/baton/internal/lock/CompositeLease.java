package dev.baton.internal.lock;

import dev.baton.lock.Lease;
import dev.baton.lock.LeaseListener;
import dev.baton.lock.LeaseState;
import dev.baton.lock.MultiLock;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.apache.zookeeper.Op;

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
    Objects.requireNonNull(listener, "listener");
    Changes changes = new Changes(listener);
    parts.forEach(part -> part.addListener((p, s) -> changes.report()));
  }

  @Override
  public void addListener(LeaseListener listener, Executor executor) {
    Objects.requireNonNull(listener, "listener");
    Objects.requireNonNull(executor, "executor");
    Changes changes = new Changes(listener);
    parts.forEach(part -> part.addListener((p, s) -> changes.report(), executor));
  }

  /**
   * Tells one listener of the changes of the whole lease: every part reports its own (a cut
   * connection makes each part SUSPECT in turn), but the listener hears a state only when the
   * least valid part's state changes. Reports are made one at a time, in order.
   */
  private final class Changes {
    private final LeaseListener listener;
    private LeaseState told; // guarded by this

    Changes(LeaseListener listener) {
      this.listener = listener;
      this.told = state();
    }

    synchronized void report() {
      LeaseState now = state();
      if (now != told) {
        told = now;
        listener.stateChanged(CompositeLease.this, now);
      }
    }
  }

  /** The check of the only part's node; a lease of several locks needs {@link #guards()}. */
  @Override
  public Op guard() {
    requireOpen();
    if (parts.size() > 1) {
      throw new UnsupportedOperationException("The multi-lock lease on " + path() + " stands on "
          + parts.size() + " lock nodes, and one check cannot cover them all: use guards()");
    }
    return parts.get(0).guard();
  }

  /** A check of every part's node, in the order the locks were taken. */
  @Override
  public List<Op> guards() {
    requireOpen();
    return parts.stream().flatMap(part -> part.guards().stream()).toList();
  }

  private void requireOpen() {
    if (closed.get()) {
      throw new IllegalStateException("The multi-lock lease on " + path() + " is released; a guard"
          + " of it would fail every transaction");
    }
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
