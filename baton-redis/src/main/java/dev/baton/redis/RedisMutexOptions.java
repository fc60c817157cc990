package dev.baton.redis;

import java.time.Duration;
import java.util.Objects;

/**
 * How a Redis {@link dev.baton.lock.Mutex} keeps its lock.
 *
 * <p><b>Replica acknowledgements</b>: Redis replicates asynchronously, so a master that fails
 * right after granting a lock may promote a replica that never heard of it, and a second client
 * then gets the same lock. With {@code replicaAcks > 0} each acquisition is followed, on the same
 * connection, by {@code WAIT replicaAcks timeout}: when fewer replicas acknowledge the grant in
 * time, the lock is released again and the acquisition fails with {@link
 * LockNotReplicatedException}. This narrows the window; it does not close it: Redis may still
 * promote a replica that did not acknowledge (the acknowledgement is not a vote), and a replica
 * that acknowledged may lose the write if it restarts without persistence. Keep checking fencing
 * tokens where the work lands.
 *
 * <p><b>Local hand-over</b> (lock cohorting, as {@link dev.baton.lock.MutexOptions} offers on
 * ZooKeeper): threads of one client that wait for the mutex while one of them holds it queue inside
 * the client, which keeps one place in Redis's queue for all of them; on release the lock passes to
 * the next local waiter without a command to Redis, at most {@code localHandOvers} times in a row,
 * then it is released in Redis even if local waiters remain, so another client's waiter waits
 * behind at most that many. Each local holder gets the next fencing token: a grant reserves
 * {@code localHandOvers + 1} tokens in the counter, so the next grant's token is larger still, and
 * the release gives back those not handed out. A reservation never runs the counter more than
 * {@code localHandOvers} microseconds ahead of the server's clock, which the tokens fall back on
 * should the counter be lost: a grant that finds the counter ahead already reserves fewer, and its
 * holder hands over fewer times in a row.
 *
 * <p><b>Lease time</b> (Redisson's {@code lock(leaseTime, unit)}): with {@link #withLeaseTime} each
 * acquisition of the mutex holds the lock for that long from its grant and is <em>not</em> renewed:
 * Redis frees the lock then even if the holder hangs or forgets to release. The lease reads {@code
 * validUntil()} = grant + lease time less the drift margin (1% plus 2 ms) and turns {@code LOST} at that
 * moment, on the client's own timer; close it before, or fence the work with its token. Without it
 * (the default) the lock lives by the client's {@link RedisBaton.Builder#leaseTtl lease TTL}, renewed
 * while held. On a dropped connection such a lease turns {@code SUSPECT}, and {@code HELD} again when a
 * check after reconnection finds the key still its own (the check does not extend it).
 *
 * @param layout the key layout; {@link RedisLockLayout#PLAIN} by default
 * @param replicaAcks how many replicas must acknowledge each grant; 0 (the default) waits for none
 * @param replicaTimeout how long to wait for them
 * @param localHandOvers the most local hand-overs in a row; 0 (the default) turns local hand-over off
 * @param leaseTime how long each acquisition holds the lock, not renewed; {@code null} (the default):
 *     the client's lease TTL, renewed while held
 */
public record RedisMutexOptions(RedisLockLayout layout, int replicaAcks, Duration replicaTimeout, int localHandOvers,
    Duration leaseTime) {
  /** Local hand-overs in a row are capped, so one grant's reserved tokens stay few. */
  public static final int MAX_LOCAL_HAND_OVERS = 4095;
  private static final RedisMutexOptions DEFAULTS =
      new RedisMutexOptions(RedisLockLayout.PLAIN, 0, Duration.ofSeconds(1), 0, null);

  public RedisMutexOptions {
    if (localHandOvers < 0 || localHandOvers > MAX_LOCAL_HAND_OVERS) {
      throw new IllegalArgumentException("localHandOvers must be between 0 and " + MAX_LOCAL_HAND_OVERS
          + ", was " + localHandOvers);
    }
    Objects.requireNonNull(layout, "layout must not be null");
    if (replicaAcks < 0) {
      throw new IllegalArgumentException("replicaAcks must not be negative, was " + replicaAcks);
    }
    Objects.requireNonNull(replicaTimeout, "replicaTimeout must not be null");
    if (replicaTimeout.isNegative() || replicaTimeout.isZero()) {
      throw new IllegalArgumentException("replicaTimeout must be positive (WAIT's 0 would wait"
          + " for ever), was " + replicaTimeout);
    }
    if (leaseTime != null) {
      RedisBaton.Builder.checkLeaseTtl(leaseTime, "leaseTime");
    }
  }

  /** Options with the client's lease TTL, renewed while held. */
  public RedisMutexOptions(RedisLockLayout layout, int replicaAcks, Duration replicaTimeout, int localHandOvers) {
    this(layout, replicaAcks, replicaTimeout, localHandOvers, null);
  }

  /** The plain layout, no replica acknowledgements. */
  public static RedisMutexOptions defaults() {
    return DEFAULTS;
  }

  /** These options with {@code layout}. */
  public RedisMutexOptions withLayout(RedisLockLayout layout) {
    return new RedisMutexOptions(layout, replicaAcks, replicaTimeout, localHandOvers, leaseTime);
  }

  /** These options, with local hand-over of at most {@code maxInARow} in a row (0: off). */
  public RedisMutexOptions withLocalHandOver(int maxInARow) {
    return new RedisMutexOptions(layout, replicaAcks, replicaTimeout, maxInARow, leaseTime);
  }

  /** These options, waiting for {@code replicas} acknowledgements of each grant, at most {@code timeout}. */
  public RedisMutexOptions withReplicaAcks(int replicas, Duration timeout) {
    return new RedisMutexOptions(layout, replicas, timeout, localHandOvers, leaseTime);
  }

  /**
   * These options, each acquisition holding the lock for {@code leaseTime} from its grant without
   * renewal (Redisson's {@code lock(leaseTime, unit)}); see the class's documentation.
   *
   * @throws IllegalArgumentException if {@code leaseTime} is shorter than {@link RedisBaton#MIN_LEASE_TTL}, naming it
   */
  public RedisMutexOptions withLeaseTime(Duration leaseTime) {
    java.util.Objects.requireNonNull(leaseTime, "leaseTime must not be null");
    return new RedisMutexOptions(layout, replicaAcks, replicaTimeout, localHandOvers, leaseTime);
  }

  /** These options with the client's lease TTL, renewed while held (the default). */
  public RedisMutexOptions withRenewedLease() {
    return new RedisMutexOptions(layout, replicaAcks, replicaTimeout, localHandOvers, null);
  }
}
