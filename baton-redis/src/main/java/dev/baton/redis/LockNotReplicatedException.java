package dev.baton.redis;

import dev.baton.BatonException;

/**
 * A lock was granted by the Redis master but fewer replicas than asked for acknowledged the grant
 * in time ({@link RedisMutexOptions#withReplicaAcks}); the grant has been released again, so the
 * caller does not hold the lock.
 */
public class LockNotReplicatedException extends BatonException {
  private static final long serialVersionUID = 1L;

  public LockNotReplicatedException(String name, int wanted, long acknowledged, java.time.Duration timeout) {
    super("The lock " + name + " was granted but only " + acknowledged + " of the " + wanted
        + " replicas asked for acknowledged it within " + timeout.toMillis() + " ms; it was released"
        + " again. Check the replicas (INFO replication) or ask for fewer.");
  }
}
