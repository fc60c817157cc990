package dev.baton.internal.leadership;

import dev.baton.BatonInterruptedException;
import dev.baton.leader.LeaderLatch;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.Mutex;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The {@link LeaderLatch} of every backend, over its {@link ElectionQueue} (a {@link Mutex} on
 * Redis and SQL, Curator's {@code LeaderLatch} layout on ZooKeeper): the latch leads while it
 * holds the lock on the election's name, and joins the queue again whenever a term ends while it is started
 * (the lease lost, or stepped down from by closing it). SUSPECT is not leading; a lease that turns
 * HELD again (the backend vouches for it once more) leads again, with the same lease.
 */
public final class MutexLeaderLatch extends MutexCandidacy implements LeaderLatch {

  /**
   * @param mutex the election's lock, for this participant alone
   * @param noticeExecutor where listeners added without an executor run ({@code Runnable::run}: on
   *     the thread that reports the change, the lease's notice thread for a loss)
   * @param checkOpen throws {@link dev.baton.ClientClosedException} if the client is closed
   */
  public MutexLeaderLatch(Mutex mutex, String participantId, Executor noticeExecutor, Runnable checkOpen) {
    this(new MutexElectionQueue(mutex, noticeExecutor, checkOpen), participantId);
  }

  /**
   * @param queue the election's queue, for this participant alone
   * @throws NullPointerException naming {@code participantId} if it is null
   * @throws IllegalArgumentException naming {@code participantId} if it is blank or the backend
   *     cannot store it
   */
  public MutexLeaderLatch(ElectionQueue queue, String participantId) {
    super(queue, participantId, "LeaderLatch");
  }

  @Override
  public void start() {
    startOnce();
  }

  @Override
  Runnable leaseChanged(Term term, LeaseState state) {
    switch (state) {
      case HELD -> gain(term);
      case SUSPECT -> lose(term);
      case LOST -> {
        lose(term);
        end(term);
        Lease lock = term.lease.lock();
        return () -> {
          queue.releaseLost(lock);
          join();
        };
      }
      case RELEASED -> {
        lose(term);
        end(term);
        return this::join; // stepped down (at the back), or the client closed (join then fails)
      }
    }
    return null;
  }

  @Override
  void steppedDown(Term term) {
    synchronized (this) {
      end(term);
    }
    join(); // after the release: behind whoever the lock goes to next
  }

  @Override
  public boolean await(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout must not be null");
    if (timeout.isNegative()) {
      throw new IllegalArgumentException("timeout must not be negative, was " + timeout);
    }
    long limit = TimeUnit.NANOSECONDS.convert(timeout);
    boolean unlimited = limit >= Long.MAX_VALUE / 2;
    long deadline = System.nanoTime() + (unlimited ? 0 : limit);
    while (true) {
      CompletableFuture<Void> change;
      synchronized (this) {
        if (phase == Phase.LATENT) {
          throw new IllegalStateException(this + " is not started; call start() before await()");
        }
        if (phase != Phase.STARTED || hasLeadership()) {
          return phase == Phase.STARTED;
        }
        throwIfFailed();
        change = nextChange(); // read with the state: a change after this read completes it
      }
      long left = unlimited ? Long.MAX_VALUE : deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      try {
        change.get(left, TimeUnit.NANOSECONDS); // outside the monitor: see signalChange()
      } catch (TimeoutException e) {
        // the loop reads the state once more, and returns false if it still does not lead
      } catch (ExecutionException e) {
        throw new IllegalStateException("a change of leadership never fails", e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new BatonInterruptedException("Interrupted while waiting for leadership of " + path(), e);
      }
    }
  }

  @Override
  public synchronized Optional<Lease> leadership() {
    Term term = current;
    if (term == null || term.lease == null) {
      return Optional.empty();
    }
    LeaseState state = term.lease.state();
    return state == LeaseState.HELD || state == LeaseState.SUSPECT ? Optional.of(term.lease) : Optional.empty();
  }

  @Override
  public void close() {
    Term term;
    Leadership lease;
    CompletableFuture<Lease> queued;
    synchronized (this) {
      if (phase == Phase.CLOSED) {
        return;
      }
      phase = Phase.CLOSED;
      signalChange(); // waiters in await() return false
      term = current;
      if (term == null) {
        return;
      }
      lease = term.lease;
      queued = term.queued;
      if (lease == null) {
        current = null;
      }
      // A held term stays current until its lease is closed: closing it tells listeners of the
      // loss (RELEASED) before the lock is released, as when the user closes the lease.
    }
    withdraw(term, lease, queued);
  }
}
