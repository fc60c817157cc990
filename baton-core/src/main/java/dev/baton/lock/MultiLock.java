package dev.baton.lock;

import dev.baton.BatonInterruptedException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Several locks taken as one, all or nothing. The locks are always taken in one global order (by
 * path), so two multi-locks over overlapping sets cannot deadlock each other, whatever order
 * their callers listed the locks in. On timeout, failure or cancellation the locks already taken
 * are released before the call returns; a release that fails is attached to the exception thrown
 * as a suppressed one (or thrown itself, where the call would otherwise have returned).
 *
 * <p>The lease it hands out covers every lock: it is {@link LeaseState#HELD} only while all parts
 * are, and its {@link Lease#fencingToken()} is the largest of the parts' tokens, which strictly
 * grows from one holder of the same set of locks to the next. Connection loss and expiry affect
 * each part as described for {@link Mutex} and {@link Lease}; its listeners hear the lease's
 * state (the least valid part's) each time it changes, once.
 *
 * <p>A lock already taken can be lost (its session expired) while a later one is awaited. The
 * multi-lock then gives back what it holds and starts over, within the same timeout, so the lease
 * it hands out never has a lost part: {@link #acquireAsync} starts over at once, a blocking
 * acquire once it has the lock it was waiting for.
 */
public interface MultiLock {

  /** The locks, in the order they are taken. */
  List<Mutex> locks();

  /**
   * Takes every lock, waiting as long as it takes.
   *
   * @throws BatonInterruptedException if interrupted; what was taken is released
   */
  MultiLease acquire();

  /**
   * Takes every lock within {@code timeout} in total.
   *
   * @throws AcquireTimeoutException naming the lock that could not be had in time; what was taken
   *     is released
   */
  MultiLease acquire(Duration timeout);

  /** As {@link #acquire(Duration)}, but empty when the timeout passes. */
  Optional<MultiLease> tryAcquire(Duration timeout);

  /** Takes every lock without holding a thread, each part as {@link Mutex#acquireAsync()}. */
  CompletableFuture<MultiLease> acquireAsync(Duration timeout);

  /**
   * A lease on every lock of a {@link MultiLock}. Closing it releases every part, last taken first,
   * even when a part's release throws (a {@link Mutex} implemented outside Baton may): once all
   * were tried, the first failure is thrown with the others {@linkplain Throwable#addSuppressed
   * suppressed}. Closing is idempotent: a second close does nothing and throws nothing.
   */
  interface MultiLease extends Lease {
    /** One lease per lock, in the order they were taken. */
    List<Lease> parts();
  }
}
