package dev.baton.internal.lock;

import dev.baton.internal.session.Durations;
import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link Mutex} whose acquisition is a {@link QueueLock}'s: the mutex and both halves of the
 * read-write lock differ only in their queue and in how they list holders and waiters.
 */
abstract class QueueMutex implements Mutex {
  private final QueueLock lock;

  QueueMutex(QueueLock lock) {
    this.lock = lock;
  }

  @Override
  public final Lease acquire() {
    return lock.acquireBlocking(null, true).orElseThrow();
  }

  @Override
  public final Lease acquire(Duration timeout) {
    return lock.acquireBlocking(Durations.checkedTimeout(timeout), true).orElseThrow();
  }

  @Override
  public final Optional<Lease> tryAcquire(Duration timeout) {
    return lock.acquireBlocking(Durations.checkedTimeout(timeout), false);
  }

  @Override
  public final CompletableFuture<Lease> acquireAsync() {
    return lock.acquireAsync(null, false);
  }

  @Override
  public final CompletableFuture<Lease> acquireAsync(Duration timeout) {
    return lock.acquireAsync(Durations.checkedTimeout(timeout), true);
  }

  @Override
  public final boolean isHeldByCurrentThread() {
    return lock.isHeldByCurrentThread();
  }
}
