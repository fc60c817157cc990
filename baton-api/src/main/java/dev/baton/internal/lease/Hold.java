package dev.baton.internal.lease;

import dev.baton.lock.LeaseState;
import java.time.Instant;
import java.util.concurrent.Executor;

/**
 * What a lease reads of the grant behind it: a backend's hold of a lock says it, and so does a
 * {@link Holding} (a hold, or one holder's {@link HoldTenure} of it).
 */
public interface Hold {
  /** The lock's path or name, as the caller gave it. */
  String path();

  long token();

  LeaseState state();

  Instant validUntil();

  /** Where listeners run when the caller names no executor. */
  Executor defaultExecutor();
}
