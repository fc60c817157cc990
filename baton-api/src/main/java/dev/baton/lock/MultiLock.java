package dev.baton.lock;

import dev.baton.BatonInterruptedException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
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
 * are. Connection loss and expiry affect each part as described for {@link Mutex} and {@link
 * Lease}; its listeners hear the lease's state (the least valid part's) each time it changes,
 * once.
 *
 * <p><b>Fencing.</b> Give the resource each lock protects that lock's own token, {@link
 * MultiLease#fencingToken(Mutex)}: it strictly grows from one holder of that lock to the next,
 * whether they took it alone or in multi-locks of any sets. The lease's {@link
 * Lease#fencingToken()} is the largest of the parts' tokens, and grows only from one holder of the
 * very same set of locks to the next: where multi-locks overlap, or a lock is also taken alone, a
 * later holder of one lock may carry a smaller largest token than an earlier one, and a resource
 * checking it would refuse the later holder's legitimate write while a stalled earlier holder's
 * would pass.
 * <pre>{@code
 * Mutex a = baton.mutex("/accounts/a"), b = baton.mutex("/accounts/b");
 * try (MultiLock.MultiLease lease = baton.multiLock(a, b).acquire(Duration.ofSeconds(5))) {
 *   transfer(accountA, lease.fencingToken(a), accountB, lease.fencingToken(b));
 * }
 * }</pre>
 *
 * <p>A lock already taken can be lost (its lease turns LOST: on ZooKeeper its session expired, on
 * Redis its TTL passed without a renewal) while a later one is awaited. The multi-lock then gives
 * back what it holds and starts over, within the same timeout, so the lease it hands out never
 * has a lost part: {@link #acquireAsync} starts over at once, a blocking
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

    /**
     * The largest of the parts' tokens. It grows only from one holder of the very same set of
     * locks to the next, not per lock: give each resource {@link #fencingToken(Mutex)} of the
     * lock that protects it (see {@link MultiLock}).
     */
    @Override
    long fencingToken();

    /**
     * The part that holds {@code lock} (matched by path; a multi-lock takes each path once). Its
     * state and token are that lock's alone; close the whole lease, not the part.
     *
     * @throws IllegalArgumentException if {@code lock}'s path is not one of this lease's locks
     */
    default Lease part(Mutex lock) {
      Objects.requireNonNull(lock, "lock");
      for (Lease part : parts()) {
        if (part.path().equals(lock.path())) {
          return part;
        }
      }
      throw new IllegalArgumentException("This multi-lock lease holds no lock on " + lock.path() + ": it holds "
          + parts().stream().map(Lease::path).toList());
    }

    /**
     * The fencing token of {@code lock}'s part: the one to pass to the resource that lock
     * protects. It strictly grows from one holder of that lock to the next, across clients and
     * whatever other locks each holder took with it (unlike {@link #fencingToken()}, see
     * {@link MultiLock}). Read locally: no request, so no connection loss or timeout to meet; a
     * token stays readable once the lease is released or lost.
     *
     * @throws IllegalArgumentException if {@code lock}'s path is not one of this lease's locks
     */
    default long fencingToken(Mutex lock) {
      return part(lock).fencingToken();
    }
  }
}
