package dev.baton.internal.observe;

import dev.baton.lock.Lease;
import dev.baton.lock.LockOwner;
import dev.baton.lock.Mutex;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/** A mutex that tells its client's observer how long each acquisition waited and how it was granted. */
final class ObservedMutex implements Mutex {
  private final Observation observation;
  private final String recipe;
  private final Mutex delegate;

  ObservedMutex(Observation observation, String recipe, Mutex delegate) {
    this.observation = observation;
    this.recipe = recipe;
    this.delegate = delegate;
  }

  Mutex delegate() {
    return delegate;
  }

  @Override
  public String path() {
    return delegate.path();
  }

  @Override
  public Lease acquire() {
    return blocking(delegate::acquire);
  }

  @Override
  public Lease acquire(Duration timeout) {
    return blocking(() -> delegate.acquire(timeout));
  }

  @Override
  public Optional<Lease> tryAcquire(Duration timeout) {
    long start = System.nanoTime();
    boolean reentrant = delegate.isHeldByCurrentThread();
    boolean busy = observation.anyHeld(path());
    Optional<Lease> lease;
    try {
      lease = delegate.tryAcquire(timeout);
    } catch (RuntimeException e) {
      observation.failed(recipe, path(), start, e);
      throw e;
    }
    lease.ifPresentOrElse(l -> observation.granted(recipe, path(), l, start, reentrant, busy),
        () -> observation.failed(recipe, path(), start, null));
    return lease;
  }

  @Override
  public CompletableFuture<Lease> acquireAsync() {
    return async(delegate::acquireAsync);
  }

  @Override
  public CompletableFuture<Lease> acquireAsync(Duration timeout) {
    return async(() -> delegate.acquireAsync(timeout));
  }

  @Override
  public boolean isHeldByCurrentThread() {
    return delegate.isHeldByCurrentThread();
  }

  @Override
  public Optional<LockOwner> holder() {
    return delegate.holder();
  }

  @Override
  public List<LockOwner> waiters() {
    return delegate.waiters();
  }

  @Override
  public String toString() {
    return delegate.toString();
  }

  private Lease blocking(Supplier<Lease> acquire) {
    long start = System.nanoTime();
    boolean reentrant = delegate.isHeldByCurrentThread();
    boolean busy = observation.anyHeld(path());
    Lease lease;
    try {
      lease = acquire.get();
    } catch (RuntimeException e) {
      observation.failed(recipe, path(), start, e);
      throw e;
    }
    observation.granted(recipe, path(), lease, start, reentrant, busy);
    return lease;
  }

  private CompletableFuture<Lease> async(Supplier<CompletableFuture<Lease>> acquire) {
    long start = System.nanoTime();
    boolean busy = observation.anyHeld(path());
    CompletableFuture<Lease> future = acquire.get();
    // Observe a dependent stage, but hand the caller the recipe's own future, so cancelling it
    // still withdraws the waiter.
    future.whenComplete((lease, error) -> {
      if (lease != null) {
        observation.granted(recipe, path(), lease, start, false, busy);
      } else {
        observation.failed(recipe, path(), start, error);
      }
    });
    return future;
  }
}
