package dev.baton.internal.leadership;

import dev.baton.lock.Lease;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * What a backend gives the one leadership algorithm ({@link MutexLeaderLatch}, {@link
 * MutexLeaderSelector}): a place in the queue for the election's name, a lease once first, how to
 * read the participants back, and how the backend's errors and notices are to be treated. Redis
 * and SQL queue on their {@link dev.baton.lock.Mutex} ({@link MutexElectionQueue}); ZooKeeper
 * queues on nodes of Curator's layout, which its mutex cannot write (a participant id as the
 * node's data), and loses a lease with its session.
 */
public interface ElectionQueue {

  /** The election's name, as the user gave it. */
  String path();

  /** Throws {@link dev.baton.ClientClosedException} if the backend's client is closed. */
  void checkOpen();

  /**
   * Whether the client is closed, so a term that ended is not followed by another; a backend that
   * cannot tell answers false, and the next attempt to queue then fails and ends the candidacy.
   */
  default boolean isClosed() {
    return false;
  }

  /**
   * Refuses an id the backend cannot store, naming {@code participantId}; called after the id
   * was checked to be neither null nor blank.
   */
  default void checkParticipantId(String participantId) {}

  /**
   * Queues as {@code participantId}: the future completes with the lock's lease once this place
   * is first. Cancelling it withdraws; a grant that arrives after the cancel is released. A
   * connection lost while queued fails the future (the candidacy queues again) or is ridden out
   * by the backend; it never waits past the backend's own limits.
   */
  CompletableFuture<Lease> queue(String participantId);

  /**
   * Calls {@code onChange} at every later change of {@code lock}'s state, where the backend
   * reports SUSPECT and LOST before another client can be granted the lock.
   */
  default void watch(Lease lock, Runnable onChange) {
    lock.addListener((lease, state) -> onChange.run());
  }

  /**
   * Gives up what the client still keeps of a lost {@code lock} (a term that ended with it); to
   * the holders of its leadership it stays LOST.
   */
  default void releaseLost(Lease lock) {
    lock.close();
  }

  /** The leadership handed out for a granted {@code lock}; a backend may add its own views of it. */
  default Leadership leadership(Lease lock, Runnable beforeRelease, Runnable afterRelease) {
    return new Leadership(lock, beforeRelease, afterRelease);
  }

  /** The leader's id, read from the backend; empty if nobody leads. */
  Optional<String> leaderId();

  /** The leader's id, then the others' in queue order, read from the backend. */
  List<String> participants();

  /**
   * Whether queueing again may cure {@code cause} (connection trouble, a race, a timed-out
   * request); not a closed client, an id or name the backend refuses, or a bug.
   */
  boolean curable(Throwable cause);

  /** {@code cause} as the error the user is shown, for the log and for {@code failure()}. */
  RuntimeException translate(Throwable cause);

  /** The pause before queueing again after {@code attempt} failures in a row (from 1). */
  Duration retryDelay(int attempt);

  /** Runs {@code task} after {@code delay}, off the caller's thread. */
  default void schedule(Runnable task, Duration delay) {
    CompletableFuture.delayedExecutor(delay.toNanos(), TimeUnit.NANOSECONDS).execute(task);
  }

  /** Where leadership listeners added without an executor run. */
  Executor noticeExecutor();

  /** Where failure listeners run; by default on the thread that records the failure. */
  default Executor failureExecutor() {
    return Runnable::run;
  }

  /**
   * Completes {@code result} as {@code request} completes, and withdraws through {@code withdraw}
   * if {@code result} is cancelled first; a lease granted after the cancel is closed at once.
   * What every {@link #queue} hands back: the candidacy only ever cancels its own future.
   */
  static void forward(CompletableFuture<Lease> result, CompletableFuture<Lease> request, Runnable withdraw) {
    result.whenComplete((lease, error) -> {
      if (error instanceof java.util.concurrent.CancellationException) {
        withdraw.run();
      }
    });
    request.whenComplete((lease, error) -> {
      if (error != null) {
        result.completeExceptionally(error instanceof java.util.concurrent.CompletionException
            && error.getCause() != null ? error.getCause() : error);
      } else if (!result.complete(lease)) {
        lease.close(); // withdrawn while the grant was on its way
      }
    });
  }
}
