package dev.baton.lock;

import dev.baton.BatonInterruptedException;
import dev.baton.ClientClosedException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A mutual-exclusion lock across processes, reentrant per thread (as a {@code ReentrantLock} or
 * Curator's {@code InterProcessMutex}). One {@code Mutex} object may be shared by any number of
 * threads of a client; each blocked thread waits in a queue of its own without waking the others.
 *
 * <p>Connection loss while waiting: the waiter keeps its place and goes on once the connection is
 * back. Session expiry while waiting: its node is gone with the session, so it queues again on
 * the client's new session, within its original timeout. Connection loss while holding: see
 * {@link Lease}.
 */
public interface Mutex {

  /** The lock's path, as given. */
  String path();

  /**
   * Waits as long as it takes. Reentrant: a thread that holds the mutex gets a new lease at once,
   * and the lock is released when every lease it took is closed.
   *
   * @throws BatonInterruptedException if interrupted while waiting (its node is removed)
   * @throws ClientClosedException if the client is closed, before or while waiting
   */
  Lease acquire();

  /**
   * Waits at most {@code timeout}.
   *
   * @throws AcquireTimeoutException when the timeout passes; the waiter's node is removed
   * @throws IllegalArgumentException if {@code timeout} is negative
   */
  Lease acquire(Duration timeout);

  /**
   * As {@link #acquire(Duration)}, but empty instead of an exception when the timeout passes.
   * {@code Duration.ZERO} tries once, without waiting behind anyone.
   */
  Optional<Lease> tryAcquire(Duration timeout);

  /**
   * Queues for the mutex without holding a thread. The lease is not bound to a thread, so this is
   * not reentrant: a thread that holds the mutex and calls this queues behind itself. Cancelling
   * the future withdraws from the queue. The future completes on the client's event executor.
   */
  CompletableFuture<Lease> acquireAsync();

  /** As {@link #acquireAsync()}, failing with {@link AcquireTimeoutException} after {@code timeout}. */
  CompletableFuture<Lease> acquireAsync(Duration timeout);

  /** Whether the calling thread holds this mutex through this object (a blocking acquire). */
  boolean isHeldByCurrentThread();

  /** The current holder, read from the ensemble; empty if nobody holds it. */
  Optional<LockOwner> holder();

  /** Those queued behind the holder, in the order they will get it, read from the ensemble. */
  List<LockOwner> waiters();
}
