package dev.baton.internal.redis;

import dev.baton.internal.lease.HoldTenure;
import dev.baton.internal.lease.LeaseLevel;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseListener;
import java.util.concurrent.Executor;

/**
 * One holder's time with a Redis lock (any recipe's {@link LeaseHold}). Without local hand-over a
 * hold has one tenure; with it (the mutex), a hold serves several in turn, each with the next token.
 */
public final class Tenure extends HoldTenure<LeaseHold> {
  /** {@code onEnd} runs once, when the last level is closed. */
  public Tenure(LeaseHold hold, long token, Runnable onEnd) {
    super(hold, token, onEnd);
  }

  public Lease newLease() {
    return new TenureLease(this);
  }

  /** Whether {@code lease} was handed over inside the client (local hand-over) rather than granted by Redis. */
  public static boolean handedOver(Lease lease) {
    return lease instanceof TenureLease level && level.tenure().handedOver();
  }

  @Override
  protected Object listen(Lease lease, LeaseListener listener, Executor executor) {
    return hold().addListener(lease, listener, executor);
  }

  @Override
  protected void forget(Object registration) {
    hold().removeListener(registration);
    hold().tellReleased(registration);
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
}
