package dev.baton;

import java.time.Duration;

/**
 * Told what a client's locks and session do, for metrics ({@code baton-micrometer}), traces
 * ({@code baton-opentelemetry}, through {@link #acquisitionStarted}) or logs. Set
 * with {@code Baton.Builder.observer} (or {@code RedisBaton.Builder.observer} for Redis locks and
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

  /** What happened to an item of a {@code dev.baton.queue.DistributedQueue} of this client. */
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

  /**
   * An acquisition of {@code path} starts, on the calling thread, before any wait: the place to
   * capture what belongs to the caller, such as its trace context. The {@link Acquisition}
   * returned is told how this one acquisition ends and, once granted, how its hold goes, so an
   * observer can follow each acquisition without matching paths. Called for locks and semaphores
   * (not elections or queues), before {@link #acquired} or {@link #acquireFailed}; the default
   * returns {@link Acquisition#NONE}.
   *
   * @param backend {@code "zookeeper"} or {@code "redis"}
   */
  default Acquisition acquisitionStarted(String backend, String recipe, String path) {
    return Acquisition.NONE;
  }

  /**
   * One acquisition, from {@link #acquisitionStarted}: told once how it ended ({@link #granted} or
   * {@link #failed}) and, if granted, what its lease does until it ends ({@link #released} or
   * {@link #leaseLost} with {@link Loss#LOST}). Calls may come on any thread, one at a time per
   * acquisition; the same rules as {@link BatonObserver}'s hold: short, never blocking. Every
   * method has a no-op default.
   */
  interface Acquisition {
    /** Follows nothing. */
    Acquisition NONE = new Acquisition() {};

    /** The lease was granted, as {@code grant}, with {@code fencingToken}. */
    default void granted(Grant grant, long fencingToken) {}

    /**
     * The acquisition gave up: {@code cause} is why, or {@code null} when a {@code tryAcquire}
     * timed out without an exception.
     */
    default void failed(Throwable cause) {}

    /**
     * The granted lease stopped being trusted: {@link Loss#SUSPECT} (it may come back, see
     * {@link #leaseRestored}) or {@link Loss#LOST} (the end of the hold).
     */
    default void leaseLost(Loss cause) {}

    /** The granted lease, {@link Loss#SUSPECT} before, is held and trusted again. */
    default void leaseRestored() {}

    /** The granted lease was released by its holder: the end of the hold. */
    default void released() {}
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
