package dev.baton.lock;

import dev.baton.FencingTokens;
import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link Mutex} uses its lock node. The default queues one node per acquisition, as
 * Curator's {@code InterProcessMutex} does. Two options trade strict first-come order across
 * clients for throughput; neither gives up mutual exclusion, growing fencing tokens or the loss
 * notice of a lease, and Curator clients on the same path are served as usual.
 *
 * <ul>
 *   <li><b>Local hand-over</b> (lock cohorting): threads of this client that wait for the mutex
 *       while one of them holds it queue inside the client, not with a node each; on release the
 *       node passes to the next local waiter without a request to the ensemble, up to {@code
 *       localHandOvers} times in a row. Then the node is released even if local waiters remain,
 *       so a waiter of another client waits behind at most that many local hand-overs. The
 *       client queues one node for all its waiting threads.
 *   <li><b>Caching</b>: after a release with nobody waiting in this client, the node is kept for
 *       up to {@code cacheIdle}, so the next acquisition costs no request. A watch on the lock's
 *       children tells when another client queues: the node is then given up at once (or at the
 *       release, if held). While the connection is suspended a cached node is given up rather
 *       than used. {@link Mutex#holder()} shows a cached lock as held by this client, with
 *       {@link LockOwner#cached()} set.
 * </ul>
 *
 * <p><b>Lock-delay</b> (as in Chubby) is a safety option: when the holder before this client lost
 * its lease without releasing it (its session expired while it stalled), this client is told it
 * holds the lock only {@code lockDelay} after it would have been, giving writes the lost holder
 * still had in flight time to land or fail. It costs one round trip per acquisition (the holder
 * records itself on the lock path) and nothing per release (the record of the release goes in
 * one transaction with the delete). Give every client of a path the same lock-delay: losses of
 * clients without it, and of Curator clients, are not recorded and so not delayed for. The
 * record is kept in the lock path's data; once the path is empty the ensemble may remove it, and
 * with it the record, so a client that queues only after that is not held back.
 *
 * @param localHandOvers the most local hand-overs in a row; 0 turns local hand-over off
 * @param cacheIdle how long a released node is kept for this client; zero turns caching off
 * @param lockDelay how long to wait after a holder before us was lost; zero turns it off
 */
public record MutexOptions(int localHandOvers, Duration cacheIdle, Duration lockDelay) {
  private static final MutexOptions DEFAULTS = new MutexOptions(0, Duration.ZERO, Duration.ZERO);

  public MutexOptions {
    if (localHandOvers < 0) {
      throw new IllegalArgumentException("localHandOvers must not be negative, was " + localHandOvers);
    }
    if (localHandOvers >= FencingTokens.PER_NODE) {
      throw new IllegalArgumentException("localHandOvers must be below " + FencingTokens.PER_NODE
          + ", was " + localHandOvers);
    }
    Objects.requireNonNull(cacheIdle, "cacheIdle must not be null");
    if (cacheIdle.isNegative()) {
      throw new IllegalArgumentException("cacheIdle must not be negative, was " + cacheIdle);
    }
    Objects.requireNonNull(lockDelay, "lockDelay must not be null");
    if (lockDelay.isNegative()) {
      throw new IllegalArgumentException("lockDelay must not be negative, was " + lockDelay);
    }
  }

  /** One node per acquisition, no local hand-over, no caching. */
  public static MutexOptions defaults() {
    return DEFAULTS;
  }

  /** These options, with local hand-over of at most {@code maxInARow} in a row (0: off). */
  public MutexOptions withLocalHandOver(int maxInARow) {
    return new MutexOptions(maxInARow, cacheIdle, lockDelay);
  }

  /** These options, keeping a released node for up to {@code idle} (zero: off). */
  public MutexOptions withCaching(Duration idle) {
    return new MutexOptions(localHandOvers, idle, lockDelay);
  }

  /** These options, with lock-delay {@code delay} after a lost holder (zero: off). */
  public MutexOptions withLockDelay(Duration delay) {
    return new MutexOptions(localHandOvers, cacheIdle, delay);
  }

  /** Whether acquisitions go through one node per client object (local hand-over or caching). */
  public boolean sharesNode() {
    return localHandOvers > 0 || !cacheIdle.isZero();
  }
}
