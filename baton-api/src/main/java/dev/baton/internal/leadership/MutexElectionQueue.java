package dev.baton.internal.leadership;

import dev.baton.ClientClosedException;
import dev.baton.lock.Lease;
import dev.baton.lock.LockOwner;
import dev.baton.lock.Mutex;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The election's queue on a backend's {@link Mutex}, for backends without an election of their
 * own (Redis, SQL): participants queue through {@link ParticipantQueue}, which records their ids
 * where {@link Mutex#holder()} and {@link Mutex#waiters()} show them to every client.
 */
final class MutexElectionQueue implements ElectionQueue {
  /** Pauses between attempts to queue after an error retrying may cure: 100 ms doubling to 3.2 s. */
  private static final long FIRST_RETRY_MILLIS = 100;
  private static final int MAX_RETRY_DOUBLINGS = 5;

  private final Mutex mutex;
  private final Executor noticeExecutor;
  private final Runnable checkOpen;

  /**
   * @param mutex the election's lock; one participant's alone (not shared with other participants
   *     or callers), since a mutex's blocking acquire is reentrant per thread
   * @param noticeExecutor where listeners added without an executor run
   * @param checkOpen throws {@link ClientClosedException} if the mutex's client is closed
   */
  MutexElectionQueue(Mutex mutex, Executor noticeExecutor, Runnable checkOpen) {
    this.mutex = Objects.requireNonNull(mutex, "mutex");
    this.noticeExecutor = Objects.requireNonNull(noticeExecutor, "noticeExecutor");
    this.checkOpen = Objects.requireNonNull(checkOpen, "checkOpen");
  }

  @Override
  public String path() {
    return mutex.path();
  }

  @Override
  public void checkOpen() {
    checkOpen.run();
  }

  @Override
  public CompletableFuture<Lease> queue(String participantId) {
    return ParticipantQueue.queue(mutex, participantId);
  }

  @Override
  public Optional<String> leaderId() {
    return mutex.holder().map(ParticipantQueue::idOf);
  }

  @Override
  public List<String> participants() {
    List<String> ids = new ArrayList<>();
    mutex.holder().ifPresent(owner -> ids.add(ParticipantQueue.idOf(owner)));
    for (LockOwner waiter : mutex.waiters()) {
      ids.add(ParticipantQueue.idOf(waiter));
    }
    return ids;
  }

  /**
   * Connection trouble, a lost lease or a timed-out request may pass; a closed client, a refused
   * argument and errors do not.
   */
  @Override
  public boolean curable(Throwable cause) {
    return cause instanceof RuntimeException
        && !(cause instanceof ClientClosedException)
        && !(cause instanceof IllegalArgumentException)
        && !(cause instanceof IllegalStateException)
        && !(cause instanceof UnsupportedOperationException)
        && !(cause instanceof SecurityException);
  }

  @Override
  public RuntimeException translate(Throwable cause) {
    return cause instanceof RuntimeException r ? r
        : new IllegalStateException("queueing on " + mutex.path() + " failed: " + cause, cause);
  }

  @Override
  public Duration retryDelay(int attempt) {
    return Duration.ofMillis(FIRST_RETRY_MILLIS << Math.min(attempt - 1, MAX_RETRY_DOUBLINGS));
  }

  @Override
  public Executor noticeExecutor() {
    return noticeExecutor;
  }
}
