package dev.baton;

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
 * @param localHandOvers the most local hand-overs in a row; 0 turns local hand-over off
 * @param cacheIdle how long a released node is kept for this client; zero turns caching off
 */
public record MutexOptions(int localHandOvers, Duration cacheIdle) {
  private static final MutexOptions DEFAULTS = new MutexOptions(0, Duration.ZERO);

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
  }

  /** One node per acquisition, no local hand-over, no caching. */
  public static MutexOptions defaults() {
    return DEFAULTS;
  }

  /** These options, with local hand-over of at most {@code maxInARow} in a row (0: off). */
  public MutexOptions withLocalHandOver(int maxInARow) {
    return new MutexOptions(maxInARow, cacheIdle);
  }

  /** These options, keeping a released node for up to {@code idle} (zero: off). */
  public MutexOptions withCaching(Duration idle) {
    return new MutexOptions(localHandOvers, idle);
  }

  /** Whether acquisitions go through one node per client object (local hand-over or caching). */
  public boolean sharesNode() {
    return localHandOvers > 0 || !cacheIdle.isZero();
  }
}
