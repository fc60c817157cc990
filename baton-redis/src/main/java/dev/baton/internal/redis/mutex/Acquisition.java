package dev.baton.internal.redis.mutex;

import dev.baton.internal.redis.QueuedAcquisition;
import dev.baton.internal.redis.RedisSession;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One acquisition of a Redis lock (see {@link QueuedAcquisition} for the waiting): it waits for a
 * release notice naming it, and re-checks when the holder's key is due to expire if it is first in
 * line. A grant is handed over once the replicas the options ask for have it.
 */
final class Acquisition extends QueuedAcquisition<RedisHold> {
  private final RedisLockMutex mutex;

  /** {@code queue == false}: one attempt that does not queue (try-once). */
  Acquisition(RedisLockMutex mutex, RedisSession session, Thread thread, boolean queue) {
    super(session, mutex.path(), mutex.keys().channel(), false, thread, queue);
    this.mutex = mutex;
  }

  @Override
  protected CompletableFuture<List<?>> sendAttempt() {
    return mutex.scripts(LockScripts.ACQUIRE, member(), mutex.leaseTtlArg(), queues() ? "queue" : "try",
        session().waiterLeaseArg(), mutex.keys().layoutArg(), ownerId(), mutex.tokensPerGrantArg());
  }

  @Override
  protected RedisHold hold(List<?> reply, long sentAt) {
    return new RedisHold(mutex, session(), ownerId(), (String) reply.get(2), (Long) reply.get(1),
        reply.size() > 3 ? (Long) reply.get(3) : 1L, sentAt);
  }

  @Override
  protected CompletableFuture<Void> confirm(RedisHold hold) {
    return mutex.confirm(hold);
  }

  /** First in line behind a holder: looks again when the holder's key is due to expire. */
  @Override
  protected long refused(List<?> reply) {
    long pttl = (Long) reply.get(1);
    long rank = (Long) reply.get(2);
    long every = recheckEvery();
    return rank == 0 && pttl > 0 ? Math.min(pttl + 1, every) : every;
  }

  @Override
  protected CompletableFuture<?> sendWithdraw() {
    return mutex.scripts(LockScripts.WITHDRAW, member(), mutex.keys().layoutArg(), ownerId());
  }
}
