package dev.baton.internal.redis.rwlock;

import dev.baton.internal.redis.QueuedAcquisition;
import dev.baton.internal.redis.RedisSession;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One acquisition of a read-write lock's half (see {@link QueuedAcquisition} for the waiting): its
 * attempts run the lock's acquire script, and wait for a release notice on Redisson's channel (which
 * Redisson's clients also publish on).
 */
final class RwAcquisition extends QueuedAcquisition<RwHold> {
  private final RedisReadWriteLock lock;
  private final boolean write;
  private final String downgradeFrom;
  private final String downgradeToken;

  /** {@code downgradeFrom}: the write hold this thread holds, whose token a read grant then carries; or null. */
  RwAcquisition(RedisReadWriteLock lock, RedisSession session, Thread thread, boolean write, boolean queue,
      RwHold downgradeFrom) {
    super(session, lock.path(), lock.keys().channel(), false, thread, queue);
    this.lock = lock;
    this.write = write;
    this.downgradeFrom = downgradeFrom == null ? "" : downgradeFrom.ownerId();
    this.downgradeToken = downgradeFrom == null ? "0" : Long.toString(downgradeFrom.token());
  }

  @Override
  protected CompletableFuture<List<?>> sendAttempt() {
    return lock.run(RwScripts.ACQUIRE, write ? "write" : "read", ownerId(), session().leaseTtlArg(),
        queues() ? "queue" : "try", session().waiterLeaseArg(), member(), downgradeFrom, downgradeToken,
        lock.keys().timeoutPrefix());
  }

  @Override
  protected RwHold hold(List<?> reply, long sentAt) {
    return new RwHold(lock, session(), write, ownerId(), (Long) reply.get(1), sentAt);
  }

  @Override
  protected CompletableFuture<?> sendWithdraw() {
    return lock.run(RwScripts.WITHDRAW, write ? "write" : "read", ownerId(), member(), lock.keys().timeoutPrefix());
  }
}
