package dev.baton.internal.redis.semaphore;

import dev.baton.internal.redis.QueuedAcquisition;
import dev.baton.internal.redis.RedisSession;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One acquisition of {@code n} permits, all or nothing (see {@link QueuedAcquisition} for the
 * waiting): woken by the count Redisson's channel publishes on every release (Redisson's clients
 * publish there too).
 *
 * <p>A notice wakes one waiter per client, the client's first (see {@link
 * dev.baton.internal.redis.ReleaseNotices}); one that cannot use it passes it on, so that the
 * first in line is woken whichever client's waiter the notice reached: refused while another is
 * first, with permits free, it wakes that one if it is of this client; granted meanwhile (the
 * notice came while its granting attempt was under way, or before it left the channel), it wakes
 * the client's next waiter.
 */
final class SemAcquisition extends QueuedAcquisition<SemHold> {
  private final RedisSemaphore semaphore;
  private final String[] ids;
  private final String[] acquireArgs;

  SemAcquisition(RedisSemaphore semaphore, RedisSession session, Thread thread, int permits, boolean queue) {
    super(session, semaphore.path(), semaphore.keys()[2], true, thread, queue);
    this.semaphore = semaphore;
    this.ids = new String[permits];
    for (int i = 0; i < permits; i++) {
      ids[i] = ownerId() + ":" + (i + 1); // one id per permit, as Redisson keeps them: each expires on its own
    }
    this.acquireArgs = new String[6 + permits];
    acquireArgs[0] = member();
    acquireArgs[1] = session.leaseTtlArg();
    acquireArgs[2] = queue ? "queue" : "try";
    acquireArgs[3] = session.waiterLeaseArg();
    acquireArgs[4] = Integer.toString(semaphore.permits());
    acquireArgs[5] = Integer.toString(permits);
    System.arraycopy(ids, 0, acquireArgs, 6, permits);
  }

  @Override
  protected CompletableFuture<List<?>> sendAttempt() {
    return semaphore.run(SemScripts.ACQUIRE, acquireArgs);
  }

  @Override
  protected SemHold hold(List<?> reply, long sentAt) {
    return new SemHold(semaphore, session(), ids, (Long) reply.get(1), sentAt);
  }

  @Override
  protected long refused(List<?> reply) {
    Object head = reply.size() > 3 ? reply.get(3) : null;
    if (listening() && head instanceof String first && !first.isEmpty() && !first.equals(member())
        && ((Long) reply.get(1)) > 0) {
      // Permits are free but another is first in line: if it is one of ours, it may be waiting for
      // the notice this attempt took (the client wakes its first waiter, not its first in line).
      session().notices().wakeMember(semaphore.keys()[2], first);
    }
    return recheckEvery();
  }

  /** A wake-up this acquisition needs no more goes to the client's next waiter, for whom it may be. */
  @Override
  protected void passOn() {
    session().notices().wakeNext(semaphore.keys()[2], this);
  }

  @Override
  protected CompletableFuture<?> sendWithdraw() {
    String[] args = new String[ids.length + 1];
    args[0] = member();
    System.arraycopy(ids, 0, args, 1, ids.length);
    return semaphore.run(SemScripts.WITHDRAW, args);
  }
}
