package dev.baton.internal.fake;

import dev.baton.BatonInterruptedException;
import dev.baton.lock.AcquireTimeoutException;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseListener;
import dev.baton.lock.LeaseState;
import dev.baton.lock.LockOwner;
import dev.baton.lock.Mutex;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * An in-memory lock server for unit tests of recipes built on {@link Mutex}: FIFO queues, tokens
 * that grow per lock, and leases a test can make SUSPECT, HELD again or LOST. As every backend
 * promises, a lease's LOST is told to its listeners (direct ones, on the thread that loses it)
 * before the lock is granted to the next waiter. Grants complete on the thread that frees the lock.
 */
public final class FakeLocks {
  private final Map<String, Lock> locks = new HashMap<>(); // guarded by this
  private long tokens; // guarded by this
  /** Made by acquireAsync() calls, in order: a test's way to see where a participant queued from. */
  public final List<String> askingThreads = new CopyOnWriteArrayList<>();

  private static final class Lock {
    FakeLease holder;
    final Deque<Waiter> waiters = new ArrayDeque<>();
  }

  private record Waiter(CompletableFuture<Lease> future, Mutex mutex, String thread) {}

  public FakeMutex mutex(String path) {
    return new FakeMutex(path);
  }

  private synchronized Lock lock(String path) {
    return locks.computeIfAbsent(path, p -> new Lock());
  }

  /** The lease that holds {@code path} now, if any. */
  public synchronized Optional<FakeLease> holderOf(String path) {
    return Optional.ofNullable(lock(path).holder);
  }

  /**
   * The waiters still waiting: one whose future has ended (timed out, cancelled) no longer counts,
   * though the callback that drops it may not have run yet when its caller wakes.
   */
  public synchronized int waitersOf(String path) {
    return (int) lock(path).waiters.stream().filter(w -> !w.future.isDone()).count();
  }

  /** Frees {@code path} (held by {@code lease}) and grants it to the next waiter, outside the monitor. */
  private void free(String path, FakeLease lease) {
    Waiter next;
    FakeLease granted;
    synchronized (this) {
      Lock lock = lock(path);
      if (lock.holder != lease) {
        return;
      }
      lock.holder = null;
      while (true) {
        next = lock.waiters.pollFirst();
        if (next == null || !next.future.isDone()) {
          break;
        }
      }
      if (next == null) {
        return;
      }
      granted = new FakeLease(path, ++tokens, next.thread);
      lock.holder = granted;
    }
    if (!next.future.complete(granted)) {
      granted.close(); // withdrawn meanwhile
    }
  }

  /** A mutex of this server; several objects of one path are several clients of one lock. */
  public final class FakeMutex implements Mutex {
    private final String path;
    /** Thrown by the next acquireAsync() instead of queueing, once each. */
    public final Deque<Supplier<RuntimeException>> refusals = new java.util.concurrent.ConcurrentLinkedDeque<>();

    FakeMutex(String path) {
      this.path = path;
    }

    @Override
    public String path() {
      return path;
    }

    @Override
    public Lease acquire() {
      return await(acquireAsync());
    }

    @Override
    public Lease acquire(Duration timeout) {
      return tryAcquire(timeout).orElseThrow(() -> new AcquireTimeoutException(path, timeout));
    }

    @Override
    public Optional<Lease> tryAcquire(Duration timeout) {
      if (timeout.isZero()) {
        synchronized (FakeLocks.this) {
          Lock lock = lock(path);
          if (lock.holder != null) {
            return Optional.empty();
          }
          lock.holder = new FakeLease(path, ++tokens, Thread.currentThread().getName());
          return Optional.of(lock.holder);
        }
      }
      try {
        return Optional.of(await(acquireAsync(timeout)));
      } catch (AcquireTimeoutException e) {
        return Optional.empty();
      }
    }

    private Lease await(CompletableFuture<Lease> future) {
      try {
        return future.get();
      } catch (InterruptedException e) {
        future.cancel(false);
        Thread.currentThread().interrupt();
        throw new BatonInterruptedException("interrupted waiting for " + path, e);
      } catch (ExecutionException e) {
        throw (RuntimeException) e.getCause();
      }
    }

    @Override
    public CompletableFuture<Lease> acquireAsync() {
      Supplier<RuntimeException> refusal = refusals.pollFirst();
      if (refusal != null) {
        throw refusal.get();
      }
      String thread = Thread.currentThread().getName();
      askingThreads.add(thread);
      CompletableFuture<Lease> future = new CompletableFuture<>();
      synchronized (FakeLocks.this) {
        Lock lock = lock(path);
        if (lock.holder == null) {
          lock.holder = new FakeLease(path, ++tokens, thread);
          future.complete(lock.holder);
          return future;
        }
        lock.waiters.addLast(new Waiter(future, this, thread));
      }
      future.whenComplete((lease, error) -> {
        if (error instanceof CancellationException || error instanceof AcquireTimeoutException) {
          synchronized (FakeLocks.this) {
            lock(path).waiters.removeIf(w -> w.future == future);
          }
        }
      });
      return future;
    }

    @Override
    public CompletableFuture<Lease> acquireAsync(Duration timeout) {
      CompletableFuture<Lease> future = acquireAsync();
      CompletableFuture.delayedExecutor(timeout.toNanos(), TimeUnit.NANOSECONDS)
          .execute(() -> future.completeExceptionally(new AcquireTimeoutException(path, timeout)));
      return future;
    }

    @Override
    public boolean isHeldByCurrentThread() {
      return false;
    }

    @Override
    public Optional<LockOwner> holder() {
      synchronized (FakeLocks.this) {
        FakeLease holder = lock(path).holder;
        return holder == null ? Optional.empty() : Optional.of(owner(holder.thread, holder.token));
      }
    }

    @Override
    public List<LockOwner> waiters() {
      synchronized (FakeLocks.this) {
        List<LockOwner> owners = new ArrayList<>();
        lock(path).waiters.stream().filter(w -> !w.future.isDone()).forEach(w -> owners.add(owner(w.thread, 0)));
        return owners;
      }
    }

    private LockOwner owner(String thread, long token) {
      return new LockOwner(path, token, "fakehost", 42, thread, 0, Instant.EPOCH, false);
    }

    @Override
    public String toString() {
      return "FakeMutex[" + path + "]";
    }
  }

  /** A lease of this server, whose state a test drives. */
  public final class FakeLease implements Lease {
    private final String path;
    private final long token;
    final String thread;
    private volatile LeaseState state = LeaseState.HELD;
    private final List<Map.Entry<LeaseListener, Executor>> listeners = new CopyOnWriteArrayList<>();
    /** Thrown by close() (the lock stays held) while set. */
    public volatile RuntimeException releaseFailure;

    FakeLease(String path, long token, String thread) {
      this.path = path;
      this.token = token;
      this.thread = thread;
    }

    @Override
    public String path() {
      return path;
    }

    @Override
    public long fencingToken() {
      return token;
    }

    @Override
    public LeaseState state() {
      return state;
    }

    @Override
    public boolean isValid() {
      return state.isValid();
    }

    @Override
    public Instant validUntil() {
      return state.isValid() ? Instant.now().plusSeconds(30) : Instant.now().minusNanos(1);
    }

    @Override
    public void addListener(LeaseListener listener) {
      addListener(listener, Runnable::run);
    }

    @Override
    public void addListener(LeaseListener listener, Executor executor) {
      listeners.add(Map.entry(listener, executor));
    }

    private synchronized boolean move(LeaseState next, LeaseState... from) {
      for (LeaseState f : from) {
        if (state == f) {
          state = next;
          return true;
        }
      }
      return false;
    }

    private void tell(LeaseState next) {
      for (Map.Entry<LeaseListener, Executor> l : listeners) {
        l.getValue().execute(() -> l.getKey().stateChanged(this, next));
      }
    }

    public void suspect() {
      if (move(LeaseState.SUSPECT, LeaseState.HELD)) {
        tell(LeaseState.SUSPECT);
      }
    }

    public void resume() {
      if (move(LeaseState.HELD, LeaseState.SUSPECT)) {
        tell(LeaseState.HELD);
      }
    }

    /** LOST: listeners told, then the lock goes to the next waiter (as a backend's expiry). */
    public void lose() {
      if (move(LeaseState.LOST, LeaseState.HELD, LeaseState.SUSPECT)) {
        tell(LeaseState.LOST);
        free(path, this);
      }
    }

    @Override
    public void close() {
      RuntimeException failure = releaseFailure;
      if (failure != null) {
        throw failure;
      }
      boolean wasLost = state == LeaseState.LOST;
      if (move(LeaseState.RELEASED, LeaseState.HELD, LeaseState.SUSPECT, LeaseState.LOST)) {
        if (!wasLost) {
          tell(LeaseState.RELEASED);
        }
        free(path, this);
      }
    }

    @Override
    public String toString() {
      return "FakeLease[" + path + ", " + token + ", " + state + "]";
    }
  }
}
