package dev.baton.internal;

import dev.baton.AcquireTimeoutException;
import dev.baton.Lease;
import dev.baton.MultiLock;
import dev.baton.Mutex;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Takes its locks one after another in path order, each with what is left of the caller's time.
 * The global order is what rules out deadlock: a multi-lock waits only for locks later in the
 * order than every lock it holds, so no cycle of waiters can form.
 */
public final class ZkMultiLock implements MultiLock {
  private final List<Mutex> locks;

  public ZkMultiLock(List<Mutex> locks) {
    Objects.requireNonNull(locks, "locks");
    if (locks.isEmpty()) {
      throw new IllegalArgumentException("a multi-lock needs at least one lock, got none");
    }
    Set<String> paths = new HashSet<>();
    for (Mutex lock : locks) {
      Objects.requireNonNull(lock, "locks must not contain null");
      if (!paths.add(lock.path())) {
        throw new IllegalArgumentException("a multi-lock cannot take " + lock.path() + " twice");
      }
    }
    List<Mutex> ordered = new ArrayList<>(locks);
    ordered.sort(Comparator.comparing(Mutex::path));
    this.locks = List.copyOf(ordered);
  }

  @Override
  public List<Mutex> locks() {
    return locks;
  }

  @Override
  public MultiLease acquire() {
    List<Lease> taken = new ArrayList<>();
    try {
      for (Mutex lock : locks) {
        taken.add(lock.acquire());
      }
    } catch (RuntimeException e) {
      releaseAll(taken, e);
      throw e;
    }
    return new CompositeLease(taken);
  }

  @Override
  public MultiLease acquire(Duration timeout) {
    return take(timeout, true).orElseThrow();
  }

  @Override
  public Optional<MultiLease> tryAcquire(Duration timeout) {
    return take(timeout, false);
  }

  private Optional<MultiLease> take(Duration timeout, boolean timeoutThrows) {
    QueueLock.checked(timeout);
    long deadline = deadline(timeout);
    List<Lease> taken = new ArrayList<>();
    try {
      for (Mutex lock : locks) {
        Optional<Lease> lease = lock.tryAcquire(remaining(deadline));
        if (lease.isEmpty()) {
          releaseAll(taken, null);
          if (timeoutThrows) {
            throw new AcquireTimeoutException(lock.path(), timeout);
          }
          return Optional.empty();
        }
        taken.add(lease.get());
      }
    } catch (RuntimeException e) {
      releaseAll(taken, e);
      throw e;
    }
    return Optional.of(new CompositeLease(taken));
  }

  @Override
  public CompletableFuture<MultiLease> acquireAsync(Duration timeout) {
    QueueLock.checked(timeout);
    long deadline = deadline(timeout);
    List<Lease> taken = new ArrayList<>();
    CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
    for (Mutex lock : locks) {
      chain = chain.thenCompose(ignored -> lock.acquireAsync(remaining(deadline)))
          .thenAccept(lease -> {
            synchronized (taken) {
              taken.add(lease);
            }
          });
    }
    CompletableFuture<MultiLease> result = chain.handle((ignored, error) -> {
      synchronized (taken) {
        if (error != null) {
          releaseAll(taken, null);
          throw Errors.translate(error, locks.toString());
        }
        return new CompositeLease(List.copyOf(taken));
      }
    });
    // A caller that cancels gets nothing, and must not be left holding what was taken.
    CompletableFuture<MultiLease> visible = new CompletableFuture<>();
    result.whenComplete((lease, error) -> {
      if (error != null) {
        visible.completeExceptionally(error.getCause() != null ? error.getCause() : error);
      } else if (!visible.complete(lease)) {
        lease.close();
      }
    });
    return visible;
  }

  private static void releaseAll(List<Lease> taken, RuntimeException cause) {
    for (int i = taken.size() - 1; i >= 0; i--) {
      try {
        taken.get(i).close();
      } catch (RuntimeException e) {
        if (cause != null) {
          cause.addSuppressed(e);
        }
      }
    }
    taken.clear();
  }

  private static long deadline(Duration timeout) {
    long nanos = Durations.timeoutNanos(timeout);
    return nanos < 0 ? Long.MAX_VALUE : System.nanoTime() + nanos;
  }

  private static Duration remaining(long deadline) {
    if (deadline == Long.MAX_VALUE) {
      return Duration.ofSeconds(Long.MAX_VALUE);
    }
    return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
  }


  @Override
  public String toString() {
    return "MultiLock" + locks;
  }
}
