package dev.baton.lock;

import dev.baton.BatonInterruptedException;
import dev.baton.ClientClosedException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A counting semaphore across processes: at most {@link #permits()} leases are held at once,
 * among all clients of the path. Wire-compatible with Curator's {@code InterProcessSemaphoreV2}
 * (lease nodes under {@code <path>/leases}, a mutex under {@code <path>/locks} taken while a lease
 * is being obtained), so Baton and Curator clients can share one semaphore. Clients must agree on
 * the number of permits; the count is not stored on the ensemble.
 *
 * <p>Waiters are served in order: a waiter first queues on the {@code locks} mutex, then, holding
 * it, waits for the number of leases to fall to the limit. One object may be shared by any number
 * of threads. Leases are not bound to a thread (close them from any thread), and acquiring is not
 * reentrant: a thread that holds a lease and asks again takes a second permit, or waits for one.
 *
 * <p>Connection loss and session expiry while waiting behave as for {@link Mutex}: the waiter
 * keeps its place across a reconnect, and after expiry queues again on the client's new session
 * within its original timeout. While holding, see {@link Lease}: each lease turns {@link
 * LeaseState#SUSPECT} and then {@link LeaseState#LOST} before another client can take its permit.
 * A timed-out, cancelled or interrupted waiter removes every node it made.
 */
public interface Semaphore {

  /** The semaphore's path, as given. */
  String path();

  /** How many leases may be held at once, as given when the semaphore was made. */
  int permits();

  /**
   * Takes one permit, waiting as long as it takes.
   *
   * @throws BatonInterruptedException if interrupted while waiting (its nodes are removed)
   * @throws ClientClosedException if the client is closed, before or while waiting
   */
  Lease acquire();

  /**
   * Takes one permit, waiting at most {@code timeout}.
   *
   * @throws AcquireTimeoutException when the timeout passes; the waiter's nodes are removed
   * @throws IllegalArgumentException if {@code timeout} is negative
   */
  Lease acquire(Duration timeout);

  /**
   * As {@link #acquire(Duration)}, but empty instead of an exception when the timeout passes.
   * {@code Duration.ZERO} tries once, without waiting behind anyone.
   */
  Optional<Lease> tryAcquire(Duration timeout);

  /**
   * Takes {@code permits} permits at once, as one lease that releases them all when closed. All
   * or nothing: on timeout (or any failure) the permits already taken are given back. The waiter
   * holds the {@code locks} mutex until it has them all, so two Baton clients each asking for
   * several permits cannot each end up holding a part and waiting for the other (Curator's {@code
   * acquire(n)} takes its permits one at a time and can; then one of the two times out).
   *
   * @throws IllegalArgumentException if {@code permits} is not between 1 and {@link #permits()},
   *     or {@code timeout} is negative
   * @throws AcquireTimeoutException when the timeout passes; nothing is held
   */
  Lease acquire(int permits, Duration timeout);

  /** As {@link #acquire(int, Duration)}, but empty instead of an exception when the timeout passes. */
  Optional<Lease> tryAcquire(int permits, Duration timeout);

  /**
   * Queues for one permit without holding a thread. Cancelling the future withdraws from the
   * queue and removes the waiter's nodes. The future completes on the client's event executor.
   */
  CompletableFuture<Lease> acquireAsync();

  /** As {@link #acquireAsync()}, failing with {@link AcquireTimeoutException} after {@code timeout}. */
  CompletableFuture<Lease> acquireAsync(Duration timeout);

  /**
   * Who holds permits now, read from the ensemble: one entry per lease node, oldest first, at most
   * {@link #permits()} of them ({@link LockOwner#node()} is the name under {@code <path>/leases};
   * a lease of several permits appears once per permit). Nodes written by Curator show its IP
   * address as host.
   */
  List<LockOwner> holders();
}
