package dev.baton.lock;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link Mutex} implemented outside Baton, as a user's own backend might be: it is always free,
 * and every close of its leases throws (after counting the attempt), the way a backend whose
 * server refuses the release would.
 */
final class ReleaseFailingMutex implements Mutex {
  private final String path;
  private final AtomicInteger releaseAttempts = new AtomicInteger();

  ReleaseFailingMutex(String path) {
    this.path = path;
  }

  /** How many times a lease of this mutex was closed. */
  int releaseAttempts() {
    return releaseAttempts.get();
  }

  @Override
  public String path() {
    return path;
  }

  @Override
  public Lease acquire() {
    return new FailingLease();
  }

  @Override
  public Lease acquire(Duration timeout) {
    return new FailingLease();
  }

  @Override
  public Optional<Lease> tryAcquire(Duration timeout) {
    return Optional.of(new FailingLease());
  }

  @Override
  public CompletableFuture<Lease> acquireAsync() {
    return CompletableFuture.completedFuture(new FailingLease());
  }

  @Override
  public CompletableFuture<Lease> acquireAsync(Duration timeout) {
    return acquireAsync();
  }

  @Override
  public boolean isHeldByCurrentThread() {
    return false;
  }

  @Override
  public Optional<LockOwner> holder() {
    return Optional.empty();
  }

  @Override
  public List<LockOwner> waiters() {
    return List.of();
  }

  private final class FailingLease implements Lease {
    @Override
    public String path() {
      return path;
    }

    @Override
    public long fencingToken() {
      return 1;
    }

    @Override
    public LeaseState state() {
      return LeaseState.HELD;
    }

    @Override
    public boolean isValid() {
      return true;
    }

    @Override
    public Instant validUntil() {
      return Instant.MAX;
    }

    @Override
    public void addListener(LeaseListener listener) {}

    @Override
    public void addListener(LeaseListener listener, Executor executor) {}

    @Override
    public void close() {
      releaseAttempts.incrementAndGet();
      throw new IllegalStateException("the server refused to release " + path);
    }
  }
}
