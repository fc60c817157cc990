package dev.baton.internal.jdbc;

import dev.baton.internal.lease.HoldTenure;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseListener;
import dev.baton.lock.LeaseState;
import java.util.concurrent.Executor;

/**
 * One holder's time with a row a {@link JdbcCohort} keeps: its own token (within the ones the
 * grant reserved) and its reentrant levels.
 */
final class JdbcTenure extends HoldTenure<JdbcHold> {
  /** {@code onEnd} runs once, when the last level is closed. */
  JdbcTenure(JdbcHold hold, long token, Runnable onEnd) {
    super(hold, token, onEnd);
  }

  /** As for a hold of its own, a thread does not enter a row that is over: it asks anew. */
  @Override
  public boolean enter() {
    LeaseState s = hold().state();
    return s != LeaseState.LOST && s != LeaseState.RELEASED && super.enter();
  }

  @Override
  protected Object listen(Lease lease, LeaseListener listener, Executor executor) {
    return hold().listen(lease, listener, executor);
  }

  @Override
  protected void forget(Object registration) {
    hold().unlistenReleased(registration);
  }
}
