package dev.baton.internal.multilock;

import dev.baton.lock.Lease;
import dev.baton.lock.LeaseListener;
import dev.baton.lock.LeaseState;
import dev.baton.lock.MultiLock;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.stream.Collectors;

/**
 * Leases of several locks held together: as valid as the least valid part, released together,
 * last taken first. Its token, the largest part's, grows from holder to holder of the same set of
 * locks only; each lock's own token is its part's ({@link #fencingToken(dev.baton.lock.Mutex)}).
 */
final class MultiLeaseOfLocks implements MultiLock.MultiLease {
  private final List<Lease> parts;
  private final AtomicBoolean closed = new AtomicBoolean();

  MultiLeaseOfLocks(List<Lease> parts) {
    if (parts.isEmpty()) {
      throw new IllegalArgumentException("a multi-lock lease needs at least one part");
    }
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

  @Override
  public long fencingToken() {
    return parts.stream().mapToLong(Lease::fencingToken).max().orElseThrow();
  }

  /** RELEASED once closed; otherwise the least valid part's (HELD < SUSPECT < LOST < RELEASED). */
  @Override
  public LeaseState state() {
    if (closed.get()) {
      return LeaseState.RELEASED;
    }
    LeaseState worst = LeaseState.HELD;
    for (Lease part : parts) {
      LeaseState state = part.state();
      if (state.ordinal() > worst.ordinal()) {
        worst = state;
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
    if (closed.get()) {
      return Instant.now().minusNanos(1);
    }
    return parts.stream().map(Lease::validUntil).min(Instant::compareTo).orElseThrow();
  }

  @Override
  public void addListener(LeaseListener listener) {
    subscribe(listener, (part, report) -> part.addListener((p, s) -> report.run()));
  }

  @Override
  public void addListener(LeaseListener listener, Executor executor) {
    Objects.requireNonNull(executor, "executor");
    subscribe(listener, (part, report) -> part.addListener((p, s) -> report.run(), executor));
  }

  private void subscribe(LeaseListener listener, BiConsumer<Lease, Runnable> onEachPart) {
    Objects.requireNonNull(listener, "listener");
    Changes changes = new Changes(listener);
    parts.forEach(part -> onEachPart.accept(part, changes::report));
  }

  /**
   * Tells one listener of the changes of the whole lease: every part reports its own (a cut
   * connection makes each part SUSPECT in turn, parts of several clients report on several
   * threads), but the listener hears a state only when the least valid part's state changes, once.
   * Reports are made one at a time, in order.
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
        listener.stateChanged(MultiLeaseOfLocks.this, now);
      }
    }
  }

  /**
   * Releases every part, last taken first; idempotent. A part whose release throws (a {@code
   * Mutex} implemented outside Baton may) does not keep the others held: every part is released,
   * then the first failure is thrown with the later ones suppressed. A second close does nothing.
   */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      PartReleases.releaseAll(parts, Lease::close).ifPresent(failure -> {
        throw failure;
      });
    }
  }

  @Override
  public String toString() {
    return "MultiLease" + parts;
  }
}
