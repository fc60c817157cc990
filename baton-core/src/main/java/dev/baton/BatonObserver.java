package dev.baton;

import java.time.Duration;

/**
 * Told what a client's locks and session do, for metrics ({@code baton-micrometer}) or logs. Set
 * with {@link Baton.Builder#observer}; every method has a no-op default. Calls come on the thread
 * that saw the event (a caller's, or the client's event executor): keep them short and never block.
 * An exception thrown here is logged and dropped; it never reaches the lock.
 *
 * <p>{@code recipe} is {@code "mutex"}, {@code "read-lock"}, {@code "write-lock"} or {@code
 * "semaphore-mutex"}; {@code path} is the lock's path as the caller gave it (an observer that
 * turns it into a metric tag must bound it: paths are unbounded).
 */
public interface BatonObserver {

  /** How a lease was granted. */
  enum Grant {
    /** Through the ensemble: this client's node reached the head of the queue. */
    QUEUED,
    /** Handed over from another thread of this client without a request (lock cohorting). */
    LOCAL_HAND_OVER,
    /** Served by a node this client kept after an earlier release (lock caching). */
    CACHED,
    /** The calling thread held the lock already (reentrancy). */
    REENTRANT
  }

  /** Why a held lease stopped being trusted (the lease's own states, named here so {@code dev.baton} needs no lock type). */
  enum Loss {
    /** The connection is suspended: the lease turned SUSPECT and may come back. */
    SUSPECT,
    /** The session expired or is presumed so: the lease turned LOST, for good. */
    LOST
  }

  /** A lease was granted after {@code waited}. */
  default void acquired(String recipe, String path, Duration waited, Grant grant) {}

  /** An acquisition gave up after {@code waited}: timed out, interrupted, cancelled or failed. */
  default void acquireFailed(String recipe, String path, Duration waited, Throwable cause) {}

  /** A lease was released by its holder after being held for {@code held}. */
  default void released(String recipe, String path, Duration held) {}

  /** A held lease stopped being trusted, for {@code cause}. */
  default void leaseLost(String recipe, String path, Loss cause) {}

  /** The client's connection changed state. */
  default void connectionStateChanged(ConnectionState state) {}
}
