package dev.baton.internal.lock;

import dev.baton.internal.engine.LeaseOfParts;
import dev.baton.internal.session.GuardedLease;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseListener;
import dev.baton.lock.LeaseState;
import dev.baton.lock.MultiLock;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.stream.Collectors;
import org.apache.zookeeper.Op;

/**
 * Leases held together: as valid as the least valid part, released together. Its token, the
 * largest part's, grows from holder to holder of the same set of locks only; each lock's own
 * token is its part's ({@link MultiLock.MultiLease#fencingToken(dev.baton.lock.Mutex)}).
 */
final class CompositeLease extends LeaseOfParts<Lease> implements MultiLock.MultiLease {

  CompositeLease(List<Lease> parts) {
    super(parts);
  }

  @Override
  public List<Lease> parts() {
    return partList();
  }

  @Override
  public String path() {
    return partList().stream().map(Lease::path).collect(Collectors.joining(",", "[", "]"));
  }

  @Override
  public Instant validUntil() {
    return partList().stream().map(Lease::validUntil).min(Instant::compareTo).orElseThrow();
  }

  @Override
  public void addListener(LeaseListener listener) {
    Objects.requireNonNull(listener, "listener");
    Changes changes = new Changes(listener);
    partList().forEach(part -> part.addListener((p, s) -> changes.report()));
  }

  @Override
  public void addListener(LeaseListener listener, Executor executor) {
    Objects.requireNonNull(listener, "listener");
    Objects.requireNonNull(executor, "executor");
    Changes changes = new Changes(listener);
    partList().forEach(part -> part.addListener((p, s) -> changes.report(), executor));
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

  @Override
  protected LeaseState stateOf(Lease part) {
    return part.state();
  }

  @Override
  protected long tokenOf(Lease part) {
    return part.fencingToken();
  }

  /** The parts may belong to different clients; their checks hold on any session. */
  @Override
  protected List<Op> guardsOf(Lease part) {
    return GuardedLease.of(part).guards();
  }

  @Override
  protected void release(Lease part) {
    part.close();
  }

  @Override
  protected String partName() {
    return "lock";
  }

  @Override
  public String toString() {
    return "MultiLease" + partList();
  }
}
