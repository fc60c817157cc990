package dev.baton.internal.leadership;

import dev.baton.lock.Lease;
import dev.baton.lock.LockOwner;
import dev.baton.lock.Mutex;
import java.util.concurrent.CompletableFuture;

/**
 * How a participant takes its place in the lock's queue so that others can read its id back.
 *
 * <p>{@link Mutex} has no way to name the owner a caller queues as, but every backend records the
 * thread that asked for the lock in its {@link LockOwner} ({@link LockOwner#thread()}), which
 * {@link Mutex#holder()} and {@link Mutex#waiters()} show to every client. So the participant
 * asks from a short-lived thread named {@value #PREFIX} followed by its id, and reads ids back
 * from that field. The thread ends as soon as the request is sent: the wait itself holds no
 * thread. A backend that shortens recorded thread names (Redis keeps 128 characters) shows a long
 * id shortened.
 */
public final class ParticipantQueue {
  /** Marks a recorded thread name as a participant's; what follows is its id. */
  public static final String PREFIX = "baton-participant:";

  private ParticipantQueue() {}

  /**
   * Queues on {@code mutex} as {@code participantId}, as {@link Mutex#acquireAsync()}. Cancelling
   * the returned future withdraws; a grant that arrives after it was cancelled is released.
   */
  public static CompletableFuture<Lease> queue(Mutex mutex, String participantId) {
    CompletableFuture<Lease> result = new CompletableFuture<>();
    Thread asker = new Thread(() -> {
      CompletableFuture<Lease> queued;
      try {
        queued = mutex.acquireAsync();
      } catch (RuntimeException | Error e) {
        result.completeExceptionally(e);
        return;
      }
      ElectionQueue.forward(result, queued, () -> queued.cancel(false));
    }, PREFIX + participantId);
    asker.setDaemon(true);
    asker.start();
    return result;
  }

  /**
   * The participant id {@code owner} was queued as; for an owner that did not queue through
   * {@link #queue} (a plain lock holder, another library), its rendering: {@code host:pid:thread},
   * or what the backend could read of it.
   */
  public static String idOf(LockOwner owner) {
    String thread = owner.thread();
    if (thread != null && thread.startsWith(PREFIX)) {
      return thread.substring(PREFIX.length());
    }
    if ((thread == null || thread.isEmpty()) && owner.pid() == 0) {
      return owner.host().isEmpty() ? owner.node() : owner.host();
    }
    return owner.host() + ":" + owner.pid() + ":" + thread;
  }
}
