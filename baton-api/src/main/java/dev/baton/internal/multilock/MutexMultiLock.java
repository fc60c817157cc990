package dev.baton.internal.multilock;

import dev.baton.BatonException;
import dev.baton.lock.AcquireTimeoutException;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.MultiLock;
import dev.baton.lock.Mutex;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link MultiLock} over any backend's {@link Mutex}es: takes its locks one after another in
 * path order, each with what is left of the caller's time. The global order is what rules out
 * deadlock: a multi-lock waits only for locks later in the order than every lock it holds, so no
 * cycle of waiters can form. Everything it knows of a lock comes through the public {@link Mutex}
 * and {@link Lease}, so connection loss and timeouts behave per part as that backend's mutex says.
 */
public final class MutexMultiLock implements MultiLock {
  private static final Logger log = LoggerFactory.getLogger(MutexMultiLock.class);
  private final List<Mutex> locks;

  /**
   * @throws IllegalArgumentException if {@code locks} is empty or names one path twice
   * @throws NullPointerException if {@code locks} is or holds null
   */
  public MutexMultiLock(List<Mutex> locks) {
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
    while (true) {
      List<Lease> taken = new ArrayList<>();
      try {
        for (Mutex lock : locks) {
          taken.add(lock.acquire());
        }
      } catch (RuntimeException e) {
        throw withReleaseFailures(e, taken);
      }
      if (noneLost(taken)) {
        return new MultiLeaseOfLocks(taken);
      }
      releaseOrThrow(taken);
    }
  }

  @Override
  public MultiLease acquire(Duration timeout) {
    return take(timeout, true).orElseThrow();
  }

  @Override
  public Optional<MultiLease> tryAcquire(Duration timeout) {
    return take(timeout, false);
  }

  /**
   * A lock taken early may be lost (its lease expired) while a later one is awaited, and someone
   * else may hold it then. A blocking waiter cannot stop waiting for that, so it starts over once
   * it has the rest: a lease with a lost part is never handed out.
   */
  private Optional<MultiLease> take(Duration timeout, boolean timeoutThrows) {
    long deadline = deadline(checkedTimeout(timeout));
    while (true) {
      List<Lease> taken = new ArrayList<>();
      try {
        for (Mutex lock : locks) {
          Optional<Lease> lease = deadline == Long.MAX_VALUE ? Optional.of(lock.acquire())
              : lock.tryAcquire(remaining(deadline));
          if (lease.isEmpty()) {
            if (timeoutThrows) {
              throw new AcquireTimeoutException(lock.path(), timeout);
            }
            releaseOrThrow(taken);
            return Optional.empty();
          }
          taken.add(lease.get());
        }
      } catch (RuntimeException e) {
        throw withReleaseFailures(e, taken);
      }
      if (noneLost(taken)) {
        return Optional.of(new MultiLeaseOfLocks(taken));
      }
      releaseOrThrow(taken);
    }
  }

  @Override
  public CompletableFuture<MultiLease> acquireAsync(Duration timeout) {
    long deadline = deadline(checkedTimeout(timeout));
    CompletableFuture<MultiLease> result = new CompletableFuture<>();
    new AsyncAcquisition(deadline, result).start();
    return result;
  }

  private static boolean noneLost(List<Lease> taken) {
    return taken.stream().noneMatch(lease -> lease.state() == LeaseState.LOST);
  }

  /**
   * The locks taken one after another without a thread. Each round takes them in order; a part
   * lost while a later lock is awaited ends the round at once: the pending wait is withdrawn, what
   * was taken is released, and a new round starts with what is left of the time. Cancelling the
   * caller's future withdraws and releases everything.
   */
  private final class AsyncAcquisition {
    private final long deadline;
    private final CompletableFuture<MultiLease> result;
    // All guarded by this.
    private int round;
    private final List<Lease> taken = new ArrayList<>();
    private CompletableFuture<Lease> pending;
    private boolean partLost;
    private boolean over;

    AsyncAcquisition(long deadline, CompletableFuture<MultiLease> result) {
      this.deadline = deadline;
      this.result = result;
    }

    void start() {
      result.whenComplete((lease, error) -> {
        if (error instanceof CancellationException) {
          abort();
        }
      });
      step(0, 0);
    }

    private void step(int forRound, int index) {
      if (index == locks.size()) {
        finish(forRound);
        return;
      }
      synchronized (this) {
        if (over || forRound != round) {
          return;
        }
      }
      // Asked for outside the monitor: a backend sends its request here (a Mutex from outside
      // Baton may do more), and the monitor is taken by the threads that complete the parts and
      // report their losses, and by a cancel. What changed meanwhile is read again below.
      CompletableFuture<Lease> next;
      try {
        Mutex lock = locks.get(index);
        next = deadline == Long.MAX_VALUE ? lock.acquireAsync() : lock.acquireAsync(remaining(deadline));
      } catch (RuntimeException e) {
        next = CompletableFuture.failedFuture(e);
      }
      boolean withdraw;
      synchronized (this) {
        // Ended, or a part lost, while it was asked for: withdrawn at once (abort and
        // onPartChanged cancel only what they find pending). onStep then closes a lease granted
        // meanwhile, or starts the next round.
        withdraw = over || forRound != round || partLost;
        if (!withdraw) {
          pending = next;
        }
      }
      if (withdraw) {
        next.cancel(false);
      }
      next.whenComplete((lease, error) -> onStep(forRound, index, lease, error));
    }

    private void onStep(int forRound, int index, Lease lease, Throwable error) {
      boolean stale;
      boolean restart = false;
      synchronized (this) {
        stale = over || forRound != round;
        if (!stale) {
          pending = null;
          if (lease != null) {
            taken.add(lease);
            partLost |= lease.state() == LeaseState.LOST;
          }
          restart = partLost;
        }
      }
      if (stale) {
        if (lease != null) {
          closeUnwanted(lease); // granted to a round that has ended
        }
        return;
      }
      if (lease != null) {
        // Registered outside the monitor: a backend may tell a listener at once, on this thread.
        lease.addListener((part, state) -> onPartChanged(forRound, state));
      }
      if (restart) {
        restart(forRound);
      } else if (error != null) {
        fail(error);
      } else {
        step(forRound, index + 1);
      }
    }

    private void onPartChanged(int forRound, LeaseState state) {
      if (state != LeaseState.LOST) {
        return;
      }
      CompletableFuture<Lease> waiting;
      synchronized (this) {
        if (over || forRound != round || partLost) {
          return;
        }
        partLost = true;
        waiting = pending;
      }
      if (waiting != null) {
        waiting.cancel(false); // its completion starts the next round
      }
    }

    private void finish(int forRound) {
      MultiLeaseOfLocks lease;
      synchronized (this) {
        if (over || forRound != round) {
          return;
        }
        if (partLost || !noneLost(taken)) {
          lease = null;
        } else {
          over = true;
          lease = new MultiLeaseOfLocks(List.copyOf(taken));
        }
      }
      if (lease == null) {
        restart(forRound);
      } else if (!result.complete(lease)) {
        closeUnwanted(lease); // cancelled by the caller while the last grant was on its way
      }
    }

    private void restart(int forRound) {
      List<Lease> release;
      synchronized (this) {
        if (over || forRound != round) {
          return;
        }
        round++;
        partLost = false;
        pending = null;
        release = new ArrayList<>(taken);
        taken.clear();
      }
      Optional<RuntimeException> failure = PartReleases.releaseAll(release, Lease::close);
      if (failure.isPresent()) {
        fail(failure.get());
      } else {
        step(forRound + 1, 0);
      }
    }

    private void fail(Throwable error) {
      List<Lease> release;
      synchronized (this) {
        if (over) {
          return;
        }
        over = true;
        release = new ArrayList<>(taken);
        taken.clear();
      }
      Throwable reported = unwrap(error);
      PartReleases.releaseAll(release, Lease::close).ifPresent(reported::addSuppressed);
      result.completeExceptionally(reported);
    }

    private void abort() {
      List<Lease> release;
      CompletableFuture<Lease> waiting;
      synchronized (this) {
        if (over) {
          return;
        }
        over = true;
        waiting = pending;
        release = new ArrayList<>(taken);
        taken.clear();
      }
      if (waiting != null) {
        waiting.cancel(false);
      }
      PartReleases.releaseAll(release, Lease::close).ifPresent(failure ->
          log.warn("Could not release every lock of {} after its acquisition was cancelled", locks, failure));
    }
  }

  /** The failure a part's future ended with, as the caller should see it. */
  private Throwable unwrap(Throwable error) {
    Throwable cause = error;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
      cause = cause.getCause();
    }
    if (cause instanceof RuntimeException || cause instanceof Error) {
      return cause;
    }
    return new BatonException("Could not take the locks " + paths() + ": " + cause, cause);
  }

  /** {@code error}, carrying the failures of releasing what was taken before it came. */
  private static RuntimeException withReleaseFailures(RuntimeException error, List<Lease> taken) {
    Optional<RuntimeException> failure = PartReleases.releaseAll(taken, Lease::close);
    taken.clear();
    failure.ifPresent(error::addSuppressed);
    return error;
  }

  /** Gives back what a round took; a lock that could not be given back is the caller's to hear of. */
  private static void releaseOrThrow(List<Lease> taken) {
    Optional<RuntimeException> failure = PartReleases.releaseAll(taken, Lease::close);
    taken.clear();
    failure.ifPresent(error -> {
      throw error;
    });
  }

  /** No caller waits for this lease any more, so a failure to release it can only be logged. */
  private void closeUnwanted(Lease lease) {
    try {
      lease.close();
    } catch (RuntimeException e) {
      log.warn("Could not release {}, taken for {} after its caller stopped waiting", lease, paths(), e);
    }
  }

  private List<String> paths() {
    return locks.stream().map(Mutex::path).toList();
  }

  private static Duration checkedTimeout(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout must not be null");
    if (timeout.isNegative()) {
      throw new IllegalArgumentException("timeout must not be negative, was " + timeout);
    }
    return timeout;
  }

  /** {@link Long#MAX_VALUE} for a wait too long to matter (past what a long of nanoseconds holds). */
  private static long deadline(Duration timeout) {
    long nanos = TimeUnit.NANOSECONDS.convert(timeout);
    return nanos >= Long.MAX_VALUE / 2 ? Long.MAX_VALUE : System.nanoTime() + nanos;
  }

  /**
   * What is left of a bounded wait. An unbounded one ({@link Long#MAX_VALUE}) is not asked for
   * with a huge duration: a backend may convert it to nanoseconds and overflow; the parts are
   * then taken with the mutex's own unbounded acquire.
   */
  private static Duration remaining(long deadline) {
    return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
  }

  @Override
  public String toString() {
    return "MultiLock" + paths();
  }
}
