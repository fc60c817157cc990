package dev.baton.internal.semaphore;

import dev.baton.internal.engine.HeldLock;
import dev.baton.internal.engine.LeaseOfParts;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseListener;
import dev.baton.lock.LeaseState;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.stream.Collectors;
import org.apache.zookeeper.Op;

/**
 * A semaphore lease: one lease node per permit, each a {@link HeldLock}, released together.
 * Revocation is not offered ({@link Lease#makeRevocable} throws), as Curator's semaphore has none.
 * Guards check every lease node ({@link #guards()}); {@link #guard()} serves a lease of one permit.
 *
 * <p>The token is the newest node's (from its czxid). For a semaphore of one permit it grows from
 * holder to holder, since lease nodes are created one after another under the {@code locks}
 * mutex; with more permits, holders overlap and tokens only tell which lease was granted later.
 */
final class PermitLease extends LeaseOfParts<HeldLock> {

  PermitLease(List<HeldLock> nodes) {
    super(nodes);
  }

  @Override
  public String path() {
    return partList().get(0).path();
  }

  @Override
  public Instant validUntil() {
    return isClosed() ? Instant.now().minusNanos(1) : partList().get(0).validUntil();
  }

  @Override
  public void addListener(LeaseListener listener) {
    addListener(listener, null);
  }

  /** All nodes belong to one session and change state together, so the first speaks for all. */
  @Override
  public void addListener(LeaseListener listener, Executor executor) {
    Objects.requireNonNull(listener, "listener");
    HeldLock first = partList().get(0);
    first.addListener(this, listener, executor == null ? first.defaultExecutor() : executor);
  }

  @Override
  protected LeaseState stateOf(HeldLock node) {
    return node.state();
  }

  @Override
  protected long tokenOf(HeldLock node) {
    return node.token();
  }

  /** Each node is checked: all belong to one session, but each may be deleted on its own. */
  @Override
  protected List<Op> guardsOf(HeldLock node) {
    return List.of(node.guard());
  }

  @Override
  protected void release(HeldLock node) {
    node.exit();
  }

  @Override
  protected String partName() {
    return "permit";
  }

  @Override
  public String toString() {
    return "Lease[" + partList().stream().map(HeldLock::toString).collect(Collectors.joining(", ")) + "]";
  }
}
