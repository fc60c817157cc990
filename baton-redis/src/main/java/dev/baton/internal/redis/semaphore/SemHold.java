package dev.baton.internal.redis.semaphore;

import dev.baton.internal.redis.LeaseHold;
import dev.baton.internal.redis.RedisSession;
import java.util.concurrent.CompletableFuture;

/** The permits one acquisition took, as one lease: renewed together, given back together. */
final class SemHold extends LeaseHold {
  private final RedisSemaphore semaphore;
  private final String[] ids;

  SemHold(RedisSemaphore semaphore, RedisSession session, String[] ids, long token, long grantedAt) {
    super(session, semaphore.path(), token, session.settings().leaseTtl(), true, grantedAt);
    this.semaphore = semaphore;
    this.ids = ids;
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
    return semaphore.run(SemScripts.RELEASE, ids);
  }
}
