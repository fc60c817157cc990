package dev.baton.internal.lock;

import dev.baton.internal.multilock.PartReleases;
import dev.baton.internal.session.Durations;
import dev.baton.internal.session.Errors;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes its locks one after another in path order, each with what is left of the caller's time.
 * The global order is what rules out deadlock: a multi-lock waits only for locks later in the
 * order than every lock it holds, so no cycle of waiters can form.
 */
public final class ZkMultiLock implements MultiLock {
  private static final Logger log = LoggerFactory.getLogger(ZkMultiLock.class);
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
        return new CompositeLease(taken);
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
   * A lock taken early may be lost with its session while a later one is awaited; its node is
   * gone and someone else may hold it. A blocking waiter cannot stop waiting for that, so it
   * starts over once it has the rest (a lease with a lost part is never handed out).
   */
  private Optional<MultiLease> take(Duration timeout, boolean timeoutThrows) {
    Durations.checkedTimeout(timeout);
    long deadline = deadline(timeout);
    while (true) {
      List<Lease> taken = new ArrayList<>();
      try {
        for (Mutex lock : locks) {
          Optional<Lease> lease = lock.tryAcquire(remaining(deadline));
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
        return Optional.of(new CompositeLease(taken));
      }
      releaseOrThrow(taken);
    }
  }

  @Override
  public CompletableFuture<MultiLease> acquireAsync(Duration timeout) {
    Durations.checkedTimeout(timeout);
    CompletableFuture<MultiLease> result = new CompletableFuture<>();
    new AsyncAcquisition(deadline(timeout), result).start();
    return result;
  }

  private static boolean noneLost(List<Lease> taken) {
    return taken.stream().noneMatch(lease -> lease.state() == LeaseState.LOST);
  }

  /**
   * The locks taken one after another without a thread. Each round takes them in order; a part
   * lost while a later lock is awaited (its session expired) ends the round at once: the pending
   * wait is withdrawn, what was taken is released, and a new round starts on the client's new
   * session with what is left of the time. Cancelling the caller's future withdraws and releases
   * everything.
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
      CompletableFuture<Lease> next;
      synchronized (this) {
        if (over || forRound != round) {
          return;
        }
        try {
          next = locks.get(index).acquireAsync(remaining(deadline));
        } catch (RuntimeException e) {
          next = CompletableFuture.failedFuture(e);
        }
        pending = next;
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
            lease.addListener((part, state) -> onPartChanged(forRound, state));
            partLost |= lease.state() == LeaseState.LOST;
          }
          restart = partLost;
        }
      }
      if (stale) {
        if (lease != null) {
          closeUnwanted(lease); // granted to a round that has ended
        }
      } else if (restart) {
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
      CompositeLease lease;
      synchronized (this) {
        if (over || forRound != round) {
          return;
        }
        if (!partLost) {
          over = true;
          lease = new CompositeLease(List.copyOf(taken));
        } else {
          lease = null;
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
      Throwable reported = Errors.translate(error, locks.toString());
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
      log.warn("Could not release {}, taken for {} after its caller stopped waiting", lease, locks, e);
    }
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
