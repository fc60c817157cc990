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
    return observation.trying(recipe, path(), delegate.isHeldByCurrentThread(), () -> delegate.tryAcquire(timeout));
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
    return observation.blocking(recipe, path(), delegate.isHeldByCurrentThread(), acquire);
  }

  private CompletableFuture<Lease> async(Supplier<CompletableFuture<Lease>> acquire) {
    return observation.async(recipe, path(), acquire);
  }
}
