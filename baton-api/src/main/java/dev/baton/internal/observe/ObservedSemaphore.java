package dev.baton.internal.observe;

import dev.baton.lock.Lease;
import dev.baton.lock.LockOwner;
import dev.baton.lock.Semaphore;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** A semaphore that tells its client's observer how long each acquisition waited and how long each lease was held, as {@code semaphore}. */
final class ObservedSemaphore implements Semaphore {
  private static final String RECIPE = "semaphore";
  private final Observation observation;
  private final Semaphore delegate;

  ObservedSemaphore(Observation observation, Semaphore delegate) {
    this.observation = observation;
    this.delegate = delegate;
  }

  @Override
  public String path() {
    return delegate.path();
  }

  @Override
  public int permits() {
    return delegate.permits();
  }

  @Override
  public Lease acquire() {
    return observation.blocking(RECIPE, path(), false, delegate::acquire);
  }

  @Override
  public Lease acquire(Duration timeout) {
    return observation.blocking(RECIPE, path(), false, () -> delegate.acquire(timeout));
  }

  @Override
  public Optional<Lease> tryAcquire(Duration timeout) {
    return observation.trying(RECIPE, path(), false, () -> delegate.tryAcquire(timeout));
  }

  @Override
  public Lease acquire(int permits, Duration timeout) {
    return observation.blocking(RECIPE, path(), false, () -> delegate.acquire(permits, timeout));
  }

  @Override
  public Optional<Lease> tryAcquire(int permits, Duration timeout) {
    return observation.trying(RECIPE, path(), false, () -> delegate.tryAcquire(permits, timeout));
  }

  @Override
  public CompletableFuture<Lease> acquireAsync() {
    return observation.async(RECIPE, path(), delegate::acquireAsync);
  }

  @Override
  public CompletableFuture<Lease> acquireAsync(Duration timeout) {
    return observation.async(RECIPE, path(), () -> delegate.acquireAsync(timeout));
  }

  @Override
  public List<LockOwner> holders() {
    return delegate.holders();
  }

  @Override
  public String toString() {
    return delegate.toString();
  }
}
