package dev.baton.internal.semaphore;

import dev.baton.internal.engine.HeldLock;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseListener;
import dev.baton.lock.LeaseState;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.apache.zookeeper.Op;

/**
 * A semaphore lease: one lease node per permit, each a {@link HeldLock}, released together.
 * Revocation is not offered ({@link Lease#makeRevocable} throws), as Curator's semaphore has none.
 * Guards check every lease node ({@link #guards()}); {@link #guard()} serves a lease of one permit.
 */
final class PermitLease implements Lease {
  private final List<HeldLock> nodes;
  private final AtomicBoolean closed = new AtomicBoolean();

  PermitLease(List<HeldLock> nodes) {
    this.nodes = List.copyOf(nodes);
  }

  @Override
  public String path() {
    return nodes.get(0).path();
  }

  /**
   * The newest node's token (from its czxid). For a semaphore of one permit it grows from holder to holder, since
   * lease nodes are created one after another under the {@code locks} mutex; with more permits,
   * holders overlap and tokens only tell which lease was granted later.
   */
  @Override
  public long fencingToken() {
    return nodes.stream().mapToLong(HeldLock::token).max().orElseThrow();
  }

  @Override
  public LeaseState state() {
    if (closed.get()) {
      return LeaseState.RELEASED;
    }
    LeaseState worst = LeaseState.HELD;
    for (HeldLock node : nodes) {
      if (node.state().ordinal() > worst.ordinal()) {
        worst = node.state(); // HELD < SUSPECT < LOST < RELEASED
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
    return closed.get() ? Instant.now().minusNanos(1) : nodes.get(0).validUntil();
  }

  @Override
  public void addListener(LeaseListener listener) {
    addListener(listener, null);
  }

  /** All nodes belong to one session and change state together, so the first speaks for all. */
  @Override
  public void addListener(LeaseListener listener, Executor executor) {
    Objects.requireNonNull(listener, "listener");
    HeldLock first = nodes.get(0);
    first.addListener(this, listener, executor == null ? first.defaultExecutor() : executor);
  }

  /** The check of the lease node, for a lease of one permit; see {@link #guards()} otherwise. */
  @Override
  public Op guard() {
    requireOpen();
    if (nodes.size() > 1) {
      throw new UnsupportedOperationException("The lease on " + path() + " holds " + nodes.size()
          + " permits, one lease node each, and one check cannot cover them all: use guards()");
    }
    return nodes.get(0).guard();
  }

  /** A check of every lease node: all belong to one session, but each may be deleted on its own. */
  @Override
  public List<Op> guards() {
    requireOpen();
    return nodes.stream().map(HeldLock::guard).toList();
  }

  private void requireOpen() {
    if (closed.get()) {
      throw new IllegalStateException("The lease on " + path() + " is released; a guard of it would"
          + " fail every transaction");
    }
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      nodes.forEach(HeldLock::exit);
    }
  }

  @Override
  public String toString() {
    return "Lease[" + nodes.stream().map(HeldLock::toString).collect(Collectors.joining(", ")) + "]";
  }
}
