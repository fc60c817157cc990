package dev.baton.internal.lease;

import dev.baton.lock.Lease;
import dev.baton.lock.LeaseListener;
import dev.baton.lock.LeaseState;
import java.time.Instant;
import java.util.concurrent.Executor;

/** One holder's hold of a lock, as its {@link LeaseLevel}s see it: a backend implements this. */
public interface Holding {
  /** The lock's path or name, as the caller gave it. */
  String path();

  long token();

  LeaseState state();

  Instant validUntil();

  /** Tells {@code listener} (as {@code lease}'s) of every later state change, on {@code executor}. */
  void addListener(Lease lease, LeaseListener listener, Executor executor);

  /** Where listeners run when the caller names no executor. */
  Executor defaultExecutor();

  /** One level less; the last releases the hold. */
  void exit();
}
