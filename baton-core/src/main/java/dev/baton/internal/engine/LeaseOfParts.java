package dev.baton.internal.engine;

import dev.baton.internal.multilock.PartReleases;
import dev.baton.internal.session.GuardedLease;
import dev.baton.lock.LeaseState;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.zookeeper.Op;

/**
 * A lease that stands on several parts, held and released together: a semaphore lease (one node
 * per permit) or a multi-lock lease (one lease per lock). It is as valid as its least valid part,
 * its token is the largest part's (ordered only among holders of the very same parts: a
 * multi-lock's resources take each part's own token), and a guard must check every part. Subclasses say how to read a
 * part; path, validity and listeners differ and stay theirs.
 *
 * @param <P> what a part is
 */
public abstract class LeaseOfParts<P> implements GuardedLease {
  private final List<P> parts;
  private final AtomicBoolean closed = new AtomicBoolean();

  protected LeaseOfParts(List<P> parts) {
    if (parts.isEmpty()) {
      throw new IllegalArgumentException("a lease needs at least one part");
    }
    this.parts = List.copyOf(parts);
  }

  protected final List<P> partList() {
    return parts;
  }

  protected final boolean isClosed() {
    return closed.get();
  }

  protected abstract LeaseState stateOf(P part);

  protected abstract long tokenOf(P part);

  protected abstract List<Op> guardsOf(P part);

  protected abstract void release(P part);

  /** What one part is, for messages: "lease node", "lock". */
  protected abstract String partName();

  /**
   * The largest part's token. It grows from one holder of the same parts to the next only; where
   * sets of parts overlap (multi-locks), each part's own token is the one ordered per lock.
   */
  @Override
  public long fencingToken() {
    return parts.stream().mapToLong(this::tokenOf).max().orElseThrow();
  }

  /** RELEASED once closed; otherwise the least valid part's (HELD < SUSPECT < LOST < RELEASED). */
  @Override
  public LeaseState state() {
    if (closed.get()) {
      return LeaseState.RELEASED;
    }
    LeaseState worst = LeaseState.HELD;
    for (P part : parts) {
      LeaseState state = stateOf(part);
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

  /** The check of the only part; a lease of several parts needs {@link #guards()}. */
  @Override
  public Op guard() {
    requireOpen();
    if (parts.size() > 1) {
      throw new UnsupportedOperationException("The lease on " + path() + " stands on " + parts.size()
          + " " + partName() + "s, and one check cannot cover them all: use guards()");
    }
    List<Op> guards = guardsOf(parts.get(0));
    if (guards.size() > 1) {
      throw new UnsupportedOperationException("The lease on " + path() + " stands on " + guards.size()
          + " nodes, and one check cannot cover them all: use guards()");
    }
    return guards.get(0);
  }

  /** A check of every part, in the order the parts were taken. */
  @Override
  public List<Op> guards() {
    requireOpen();
    return parts.stream().flatMap(part -> guardsOf(part).stream()).toList();
  }

  private void requireOpen() {
    if (closed.get()) {
      throw new IllegalStateException("The lease on " + path() + " is released; a guard of it would"
          + " fail every transaction");
    }
  }

  /**
   * Releases every part, last taken first; idempotent. A part whose release throws (a {@code
   * Mutex} implemented outside Baton may) does not keep the others held: every part is released,
   * then the first failure is thrown with the later ones {@linkplain Throwable#addSuppressed
   * suppressed}. A second close does nothing, whatever the first one threw.
   */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      PartReleases.releaseAll(parts, this::release).ifPresent(failure -> {
        throw failure;
      });
    }
  }
}
