package dev.baton.internal.redis.mutex;

import dev.baton.internal.redis.HoldClient;
import dev.baton.internal.redis.LeaseHold;
import dev.baton.internal.redis.RedisSession;
import dev.baton.internal.redis.Tenure;
import java.util.concurrent.CompletableFuture;

/**
 * A mutex's grant in Redis, for one holder's {@link Tenure} or, with local hand-over, for several in
 * turn (each with the next of the tokens the grant reserved). The release deletes the key only if it
 * still holds this holder's value, and gives back the reserved tokens not handed out.
 */
// Not final: LocalCohortLincheckTest answers its release in memory (see the second constructor).
class RedisHold extends LeaseHold {
  private final RedisLockMutex mutex;
  private final String ownerId;
  private final String value;
  /** The last token the grant reserved: local hand-over may hand out up to it. */
  private final long reservedEnd;
  /** The last token handed out; the release gives the rest of the reservation back. */
  private volatile long usedEnd;

  RedisHold(RedisLockMutex mutex, RedisSession session, String ownerId, String value, long token, long reserved,
      long grantedAt) {
    super(session, mutex.path(), token, mutex.leaseTtl(), mutex.renews(), grantedAt);
    this.mutex = mutex;
    this.ownerId = ownerId;
    this.value = value;
    this.reservedEnd = token + Math.max(1, reserved) - 1;
    this.usedEnd = token;
  }

  /**
   * A grant on {@code path} held through a test's in-memory {@code client}, with no mutex behind it:
   * the test answers {@link #renewCommand} and {@link #releaseCommand} itself.
   */
  RedisHold(HoldClient client, String path, long token, long reserved, java.time.Duration ttl) {
    super(client, path, token, ttl, true, System.nanoTime());
    this.mutex = null;
    this.ownerId = "owner:" + token;
    this.value = "value:" + token;
    this.reservedEnd = token + Math.max(1, reserved) - 1;
    this.usedEnd = token;
  }

  String ownerId() {
    return ownerId;
  }

  /** How many tokens the grant reserved, from {@link #token()} on: the most tenures this hold may serve. */
  long reserved() {
    return reservedEnd - token() + 1;
  }

  /** Records that {@code handedOut}, one of the reserved tokens, was handed to a holder. */
  void use(long handedOut) {
    if (handedOut > usedEnd) {
      usedEnd = handedOut;
    }
  }

  @Override
  protected CompletableFuture<Long> renewCommand(boolean extend) {
    // A fixed lease time is checked, not extended ("0"): its key expires when the lease said it would.
    return mutex.scripts(LockScripts.RENEW, value, extend ? mutex.leaseTtlArg() : "0", mutex.keys().layoutArg(),
        ownerId);
  }

  @Override
  protected CompletableFuture<?> releaseCommand() {
    return mutex.scripts(LockScripts.RELEASE, value, mutex.keys().layoutArg(), ownerId, Long.toString(reservedEnd),
        Long.toString(usedEnd));
  }
  @Override
  public String toString() {
    return super.toString() + " owner " + ownerId;
  }
}
