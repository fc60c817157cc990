package dev.baton;

import dev.baton.atomic.Counter;
import dev.baton.leader.LeaderLatch;
import dev.baton.leader.LeaderSelector;
import dev.baton.leader.LeaderTask;
import dev.baton.lock.MultiLock;
import dev.baton.lock.Mutex;
import dev.baton.lock.MutexOptions;
import dev.baton.lock.ReadWriteLock;
import dev.baton.lock.Semaphore;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * The one entry type of every backend: the ZooKeeper client ({@code Baton}), the Redis client
 * ({@code RedisBaton}) and the SQL client hand out the same locks, leases and elections through
 * it, so code written against this interface runs unchanged on whichever store a team runs, and a
 * deployment can choose the store by configuration (the Spring Boot starter's {@code
 * baton.backend}).
 *
 * <pre>{@code
 * Coordinator coordinator = Baton.connect("127.0.0.1:2181");   // or RedisBaton.connect("redis://...")
 * try (Lease lease = coordinator.mutex("/locks/sku-42").acquire(Duration.ofSeconds(5))) {
 *   stock.decrement(lease.fencingToken());
 * }
 * }</pre>
 *
 * <p><b>Names.</b> A name is what the backend keys the recipe by: a znode path on ZooKeeper, a key
 * on Redis, a row's key in SQL. An absolute slash-separated path of printable characters ({@code
 * /locks/sku-42}) is accepted by every backend and means the same lock on each; other names may be
 * refused by some (ZooKeeper refuses a name without a leading {@code /}) with an {@link
 * IllegalArgumentException} naming it.
 *
 * <p><b>What a backend cannot do</b> it refuses with an {@link UnsupportedOperationException} that
 * names the backend and the feature, when the recipe is asked for (never later, while in use). The
 * README's table of backends lists what each one has; the conformance suite in baton-testkit
 * checks that every backend keeps the contract of what it does offer, and that what it declares it
 * cannot promise really turns out as declared.
 *
 * <p><b>Connection loss and timeouts</b> are described by each recipe's interface ({@link Mutex},
 * {@link dev.baton.lock.Lease}, {@link LeaderLatch}) in terms every backend keeps: a lease turns
 * {@code SUSPECT} when its backend cannot vouch for it, {@code LOST} before another client can be
 * granted it, and an acquire that times out leaves nothing queued behind. Making a recipe sends
 * nothing; the first request goes out when it is used.
 */
public interface Coordinator extends AutoCloseable {

  /**
   * The store this client runs on, in lower case as the Spring starter's {@code baton.backend}
   * takes it: {@code zookeeper}, {@code redis}, {@code postgresql} or {@code mysql}.
   */
  String backend();

  /**
   * A reentrant mutex on {@code name} with the backend's default options.
   *
   * @throws IllegalArgumentException if this backend cannot use {@code name}, naming it and why
   * @throws ClientClosedException if this client is closed
   */
  Mutex mutex(String name);

  /**
   * A reentrant mutex on {@code name} with {@code options}: local hand-over between this client's
   * threads, caching of a released lock, lock-delay after a lost holder (see {@link MutexOptions}).
   * They trade strict first-come order across clients for throughput; none gives up exclusion,
   * growing fencing tokens or the loss notice of a lease. With {@link MutexOptions#defaults()} this
   * is {@link #mutex(String)}. Connection loss and timeouts are as {@link Mutex} says; what each
   * option does while the link is down is in the backend's own documentation of this method.
   *
   * @throws UnsupportedOperationException if this backend lacks an option asked for (see the
   *     README's table of backends), naming the backend and the option
   * @throws IllegalArgumentException if this backend cannot use {@code name}, naming it and why
   * @throws NullPointerException if {@code options} is null
   * @throws ClientClosedException if this client is closed
   */
  default Mutex mutex(String name, MutexOptions options) {
    Objects.requireNonNull(options, "options must not be null");
    if (options.localHandOvers() > 0) {
      throw unsupported("local hand-over (MutexOptions.withLocalHandOver)");
    }
    if (!options.cacheIdle().isZero()) {
      throw unsupported("lock caching (MutexOptions.withCaching)");
    }
    if (!options.lockDelay().isZero()) {
      throw unsupported("lock-delay (MutexOptions.withLockDelay)");
    }
    return mutex(name);
  }

  /** A read-write lock on {@code name}: many readers or one writer (see {@link ReadWriteLock}). */
  default ReadWriteLock readWriteLock(String name) {
    throw unsupported("read-write lock");
  }

  /**
   * A counting semaphore on {@code name} with {@code permits} permits (see {@link Semaphore});
   * every client of the name must give the same number.
   *
   * @throws IllegalArgumentException if {@code permits} is less than 1
   */
  default Semaphore semaphore(String name, int permits) {
    throw unsupported("semaphore");
  }

  /**
   * The locks taken as one, all or nothing, in a global order (see {@link MultiLock}).
   *
   * @throws IllegalArgumentException if no lock is given, or one path is given twice
   */
  default MultiLock multiLock(Mutex... locks) {
    throw unsupported("multi lock");
  }

  /** A participant {@code participantId} in the election of {@code name}, not yet started. */
  default LeaderLatch leaderLatch(String name, String participantId) {
    throw unsupported("leader latch");
  }

  /**
   * A participant that runs {@code task} each time it leads, and gives up the lead when the task
   * returns (see {@link LeaderSelector}); not yet started.
   */
  default LeaderSelector leaderSelector(String name, String participantId, LeaderTask task) {
    throw unsupported("leader selector");
  }

  /** A shared {@code long} on {@code name}, updated with compare-and-set (see {@link Counter}). */
  default Counter counter(String name) {
    throw unsupported("counter");
  }

  /** The client's connection state, in the words every backend uses; reading it sends nothing. */
  ConnectionState connectionState();

  /** Calls {@code listener} on each later change of {@link #connectionState()}. */
  void addConnectionStateListener(ConnectionStateListener listener);

  /** Calls {@code listener}, on {@code executor}, on each later change of {@link #connectionState()}. */
  void addConnectionStateListener(ConnectionStateListener listener, Executor executor);

  void removeConnectionStateListener(ConnectionStateListener listener);

  /**
   * Releases every lease this client holds (in the background: waiters elsewhere are told as the
   * backend allows), withdraws its waiters and closes its connections. Idempotent; later calls on
   * this client or what it made fail with {@link ClientClosedException}.
   */
  @Override
  void close();

  private UnsupportedOperationException unsupported(String feature) {
    return new UnsupportedOperationException("The " + backend() + " backend has no " + feature
        + " (see the README's table of backends)");
  }
}
