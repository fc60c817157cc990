package dev.baton;

import java.time.Duration;

/**
 * Told what a client's locks and session do, for metrics ({@code baton-micrometer}) or logs. Set
 * with {@link Baton.Builder#observer} (or {@code RedisBaton.Builder.observer} for Redis locks and
 * connection states); every method has a no-op default. Calls come on the thread
 * that saw the event (a caller's, or the client's event executor): keep them short and never block.
 * An exception thrown here is logged and dropped; it never reaches the lock.
 *
 * <p>{@code recipe} is {@code "mutex"}, {@code "read-lock"}, {@code "write-lock"}, {@code
 * "semaphore-mutex"} or {@code "semaphore"} for locks, {@code "leader-latch"} or {@code
 * "leader-selector"} for elections; {@code path} is the recipe's path (a Redis lock's name) as the
 * caller gave it (an observer that turns it into a metric tag must bound it: paths are unbounded).
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

  /** What happened to an item of a {@link dev.baton.queue.DistributedQueue} of this client. */
  enum QueueEvent {
    /** Taken (claimed) by a consumer of this client, by {@code take} or a consumer loop. */
    TAKEN,
    /** Acknowledged: done, and gone from the queue. */
    ACKED,
    /** Given back to the queue (released, or its handler failed and it will be delivered again). */
    RELEASED,
    /** Handed to the dead letters after failing too often. */
    DEAD_LETTERED
  }

  /** A lease was granted after {@code waited}. */
  default void acquired(String recipe, String path, Duration waited, Grant grant) {}

  /** An acquisition gave up after {@code waited}: timed out, interrupted, cancelled or failed. */
  default void acquireFailed(String recipe, String path, Duration waited, Throwable cause) {}

  /** A lease was released by its holder after being held for {@code held}. */
  default void released(String recipe, String path, Duration held) {}

  /** A held lease stopped being trusted, for {@code cause}. */
  default void leaseLost(String recipe, String path, Loss cause) {}

  /** A leader latch or selector of this client became leader of {@code path}. */
  default void leadershipGained(String recipe, String path) {}

  /**
   * A leader latch or selector of this client stopped being leader of {@code path}, or can no
   * longer be sure it is (connection suspended, session lost, given up, closed).
   */
  default void leadershipLost(String recipe, String path) {}

  /** An item of the queue at {@code path} was taken, acknowledged, given back or dead-lettered. */
  default void queueItem(String path, QueueEvent event) {}

  /** The client's connection changed state. */
  default void connectionStateChanged(ConnectionState state) {}
}
