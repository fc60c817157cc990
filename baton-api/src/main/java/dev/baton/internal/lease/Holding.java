package dev.baton.internal.lease;

import dev.baton.lock.Lease;
import dev.baton.lock.LeaseListener;
import java.util.concurrent.Executor;

/** One holder's hold of a lock, as its {@link LeaseLevel}s see it: a backend implements this. */
public interface Holding extends Hold {
  /** Tells {@code listener} (as {@code lease}'s) of every later state change, on {@code executor}. */
  void addListener(Lease lease, LeaseListener listener, Executor executor);

  /** One level less; the last releases the hold. */
  void exit();
}
