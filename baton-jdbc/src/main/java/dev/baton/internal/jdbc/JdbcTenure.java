package dev.baton.internal.jdbc;

import dev.baton.internal.lease.Holding;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseListener;
import dev.baton.lock.LeaseState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * One holder's time with a row a {@link JdbcCohort} keeps: its own token (within the ones the
 * grant reserved) and its reentrant levels. Its leases follow the hold's state until the tenure
 * ends, then read RELEASED, tell their listeners so, and hear nothing more of the hold.
 */
final class JdbcTenure implements Holding {
  private final JdbcHold hold;
  private final long token;
  private final Runnable onEnd;
  private final List<Object> registrations = new ArrayList<>(); // guarded by this
  private int levels = 1; // guarded by this

  /** {@code onEnd} runs once, when the last level is closed. */
  JdbcTenure(JdbcHold hold, long token, Runnable onEnd) {
    this.hold = hold;
    this.token = token;
    this.onEnd = onEnd;
  }

  JdbcHold hold() {
    return hold;
  }

  @Override
  public String path() {
    return hold.path();
  }

  @Override
  public long token() {
    return token;
  }

  synchronized boolean ended() {
    return levels == 0;
  }

  @Override
  public LeaseState state() {
    return ended() ? LeaseState.RELEASED : hold.state();
  }

  @Override
  public Instant validUntil() {
    return ended() ? Instant.now().minusNanos(1) : hold.validUntil();
  }

  /** One more reentrant level, unless the tenure has ended or its hold is over. */
  boolean enter() {
    LeaseState s = hold.state();
    if (s == LeaseState.LOST || s == LeaseState.RELEASED) {
      return false;
    }
    synchronized (this) {
      if (levels == 0) {
        return false;
      }
      levels++;
      return true;
    }
  }

  @Override
  public void exit() {
    List<Object> registered;
    synchronized (this) {
      if (levels == 0 || --levels > 0) {
        return;
      }
      registered = List.copyOf(registrations);
      registrations.clear();
    }
    onEnd.run();
    registered.forEach(hold::unlistenReleased);
  }

  @Override
  public void addListener(Lease lease, LeaseListener listener, Executor executor) {
    synchronized (this) {
      if (levels > 0) {
        registrations.add(hold.listen(lease, listener, executor));
      }
    }
  }

  @Override
  public Executor defaultExecutor() {
    return hold.defaultExecutor();
  }

  @Override
  public String toString() {
    return hold + " (tenure token " + token + ")";
  }
}
