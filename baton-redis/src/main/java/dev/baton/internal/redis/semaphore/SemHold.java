package dev.baton.internal.redis.semaphore;

import dev.baton.internal.redis.LeaseHold;
import dev.baton.internal.redis.RedisSession;
import java.util.concurrent.CompletableFuture;

/** The permits one acquisition took, as one lease: renewed together, given back together. */
final class SemHold extends LeaseHold {
  private final RedisSemaphore semaphore;
  private final String[] ids;
  private final long grantedAt;

  SemHold(RedisSemaphore semaphore, RedisSession session, String[] ids, long token, long grantedAt) {
    super(session, semaphore.path(), token, session.settings().leaseTtl(), true, grantedAt);
    // grantedAt: no later than the server's expiry less the TTL (a grant told on the grant channel
    // was made before it came), so the lease is never valid past the server's expiry.
    this.semaphore = semaphore;
    this.ids = ids;
    this.grantedAt = grantedAt;
  }

  /**
   * Starts renewing; a grant that reached this client a renewal period or more after it was made
   * (a notice held up, found by a later attempt) is renewed at once rather than a period from now,
   * so that its validity, counted from the grant, does not run down meanwhile.
   */
  @Override
  public void start() {
    super.start();
    if (System.nanoTime() - grantedAt >= session().settings().renewEvery().toNanos()) {
      renewSoon();
    }
  }

  @Override
  protected CompletableFuture<Long> renewCommand(boolean extend) {
    String[] args = new String[ids.length + 1];
    args[0] = extend ? session().leaseTtlArg() : "0";
    System.arraycopy(ids, 0, args, 1, ids.length);
    return semaphore.run(SemScripts.RENEW, args);
  }

  @Override
  protected CompletableFuture<?> releaseCommand() {
    String[] args = new String[ids.length + 1];
    args[0] = ""; // no waiter to take out of the queue
    System.arraycopy(ids, 0, args, 1, ids.length);
    return semaphore.run(SemScripts.RELEASE, args);
  }
}
