package dev.baton.internal.redis.rwlock;

import dev.baton.internal.redis.LeaseHold;
import dev.baton.internal.redis.RedisSession;
import java.util.concurrent.CompletableFuture;

/** One reader's or the writer's grant of a read-write lock: its hash field, renewed and released by owner. */
final class RwHold extends LeaseHold {
  private final RedisReadWriteLock lock;
  private final boolean write;
  private final String ownerId;

  RwHold(RedisReadWriteLock lock, RedisSession session, boolean write, String ownerId, long token, long grantedAt) {
    super(session, lock.path(), token, session.settings().leaseTtl(), true, grantedAt);
    this.lock = lock;
    this.write = write;
    this.ownerId = ownerId;
  }

  /** The owner's hash field (a writer's is this plus {@code :write}). */
  String ownerId() {
    return ownerId;
  }

  boolean write() {
    return write;
  }

  @Override
  protected CompletableFuture<Long> renewCommand(boolean extend) {
    return lock.run(RwScripts.RENEW, kind(), ownerId, extend ? session().leaseTtlArg() : "0",
        lock.keys().timeoutPrefix());
  }

  @Override
  protected CompletableFuture<?> releaseCommand() {
    return lock.run(RwScripts.RELEASE, kind(), ownerId, lock.keys().timeoutPrefix());
  }

  private String kind() {
    return write ? "write" : "read";
  }

  @Override
  public String toString() {
    return super.toString() + " " + kind() + " owner " + ownerId;
  }
}
