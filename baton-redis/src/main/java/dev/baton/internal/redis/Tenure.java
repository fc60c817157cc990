package dev.baton.internal.redis;

import dev.baton.internal.lease.Holding;
import dev.baton.internal.lease.LeaseLevel;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseListener;
import dev.baton.lock.LeaseState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * One holder's time with a Redis lock (any recipe's {@link LeaseHold}): its fencing token and its
 * reentrant levels. Without local hand-over a hold has one tenure; with it (the mutex), a hold serves
 * several in turn, each with the next token. The tenure's leases follow the hold's state until the tenure ends, then read RELEASED,
 * tell their listeners so, and hear nothing more.
 */
public final class Tenure implements Holding {
  private final LeaseHold hold;
  private final long token;
  private final Runnable onEnd;
  private final List<Object> registrations = new ArrayList<>(); // guarded by this
  private final List<Runnable> endActions = new java.util.concurrent.CopyOnWriteArrayList<>();
  private int levels = 1; // guarded by this

  /** {@code onEnd} runs once, when the last level is closed. */
  public Tenure(LeaseHold hold, long token, Runnable onEnd) {
    this.hold = hold;
    this.token = token;
    this.onEnd = onEnd;
  }

  @Override
  public String path() {
    return hold.path();
  }

  @Override
  public long token() {
    return token;
  }

  public LeaseHold hold() {
    return hold;
  }

  public synchronized boolean ended() {
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

  /** One more reentrant level, unless the tenure has ended. */
  public synchronized boolean enter() {
    if (levels == 0) {
      return false;
    }
    levels++;
    return true;
  }

  public Lease newLease() {
    return new TenureLease(this);
  }

  /** Whether {@code lease} was handed over inside the client (local hand-over) rather than granted by Redis. */
  public static boolean handedOver(Lease lease) {
    return lease instanceof TenureLease level && level.tenure().token != level.tenure().hold.token();
  }

  /** A lease of a tenure, which can say whose tenure it is. */
  private static final class TenureLease extends LeaseLevel {
    TenureLease(Tenure tenure) {
      super(tenure);
    }

    Tenure tenure() {
      return (Tenure) holding();
    }
  }

  /** One level less; the last ends the tenure. */
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
    registered.forEach(hold::removeListener);
    onEnd.run();
    // The lease reads RELEASED from now on; its listeners hear it as their last change.
    registered.forEach(hold::tellReleased);
    endActions.forEach(Runnable::run);
  }

  /** Runs {@code action} when the tenure ends (not if it has ended already). */
  public void whenEnded(Runnable action) {
    endActions.add(action);
  }

  @Override
  public void addListener(Lease lease, LeaseListener listener, Executor executor) {
    synchronized (this) {
      if (levels > 0) {
        registrations.add(hold.addListener(lease, listener, executor));
      }
    }
  }

  @Override
  public Executor defaultExecutor() {
    return hold.defaultExecutor();
  }

  @Override
  public String toString() {
    return hold + (token != hold.token() ? " (local token " + token + ")" : "");
  }
}
