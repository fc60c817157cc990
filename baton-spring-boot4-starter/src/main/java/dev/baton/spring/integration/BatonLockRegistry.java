package dev.baton.spring.integration;

import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * A Spring Integration 7 {@code LockRegistry} of {@link DistributedLock}s on Baton's mutex, on
 * either backend: a drop-in for {@code ZookeeperLockRegistry} and {@code RedisLockRegistry} wherever
 * a registry is injected (an aggregator's lock registry, {@code LockRegistryLeaderInitiator}, {@code
 * executeLocked}).
 *
 * <pre>{@code
 * LockRegistry<DistributedLock> locks = new BatonLockRegistry(baton::mutex, LockKeyLayout.zookeeper("/locks"));
 * locks.executeLocked("order-42", Duration.ofSeconds(5), () -> ship(order));
 * locks.obtain("report").lock(Duration.ofMinutes(10));   // released by the registry after 10 min at most
 * }</pre>
 *
 * <p>Each lock is a {@link BatonDistributedLock}: a {@code MutexLock} (reentrant per thread,
 * unlocked only by the thread that locked it, {@code IllegalMonitorStateException} otherwise, as
 * both Spring registries do; no conditions) with an optional time-to-live per hold. The same key
 * gives the same lock object until {@link #expireUnusedOlderThan expired}, so holds count per thread
 * across {@code obtain} calls.
 *
 * <p><b>Connection loss and timeouts</b>: a waiter keeps its place across a short loss and queues
 * again after a session expiry; {@code tryLock(time, unit)} returns {@code false} when the time
 * passes, leaving nothing on the server. A lock whose lease was lost while held throws {@link
 * dev.baton.lock.LockLostException} from {@code unlock()}, one whose time-to-live ran out throws
 * {@link LockExpiredException}, where {@code RedisLockRegistry} throws {@code
 * ConcurrentModificationException} for both.
 *
 * <p><b>Renewal</b>: Baton keeps a lease alive by itself while its process lives (a ZooKeeper lease
 * lives with the session; a Redis lease is renewed by the client), so no renewal task is needed.
 * {@link #renewLock(Object, Duration)} restarts the hold's time-to-live from now, and {@link
 * #renewLock(Object)} restarts the last one given; both first check that the calling thread still
 * holds a valid lease and throw {@code IllegalStateException} otherwise, as {@code
 * RedisLockRegistry.renewLock} does for a lock it cannot renew.
 *
 * <p>This class is the Spring Integration 7 registry ({@code baton-spring-boot4-starter}, Boot 4);
 * {@code baton-spring-boot-starter} has one on Spring Integration 6.5.
 */
public final class BatonLockRegistry
    implements ExpirableLockRegistry<DistributedLock>, RenewableLockRegistry<DistributedLock> {
  private final LockTable<BatonDistributedLock> locks;

  /**
   * A registry whose locks are {@code mutexes.apply(layout.nameFor(key))}: pass {@code baton::mutex}
   * or {@code redisBaton::mutex}, or a lambda that adds {@code MutexOptions}.
   */
  public BatonLockRegistry(Function<String, Mutex> mutexes, LockKeyLayout layout) {
    this.locks = new LockTable<>(mutexes, layout, BatonDistributedLock::new);
  }

  /**
   * The lock for {@code lockKey}; cheap, nothing is sent until it is locked.
   *
   * @throws IllegalArgumentException if the layout cannot take the key (naming it)
   */
  @Override
  public BatonDistributedLock obtain(Object lockKey) {
    return locks.obtain(lockKey);
  }

  /**
   * Forgets the locks obtained at least {@code age} milliseconds ago that no thread of this process
   * holds, so a registry over ever-new keys does not grow without bound. A forgotten lock still
   * works; {@code obtain} then hands out a new object for its key.
   */
  @Override
  public void expireUnusedOlderThan(long age) {
    locks.expireUnusedOlderThan(age);
  }

  /**
   * Checks that the calling thread holds the lock of {@code lockKey} on a valid lease, and restarts
   * the time-to-live it was last given (a hold without one keeps having none).
   *
   * @throws IllegalStateException if the calling thread does not hold it, or its lease is not
   *     valid (connection suspended, or lost)
   */
  @Override
  public void renewLock(Object lockKey) {
    locks.heldByCurrentThread(lockKey).renew(null);
  }

  /**
   * Checks as {@link #renewLock(Object)}, then lets the calling thread hold the lock for {@code ttl}
   * from now before the registry releases it. The lease itself needs no renewal.
   *
   * @throws IllegalStateException if the calling thread does not hold it on a valid lease
   * @throws IllegalArgumentException if {@code ttl} is not positive
   */
  @Override
  public void renewLock(Object lockKey, Duration ttl) {
    if (Objects.requireNonNull(ttl, "ttl").isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("a lock's time-to-live must be positive; was " + ttl);
    }
    locks.heldByCurrentThread(lockKey).renew(ttl);
  }

  /**
   * The lease behind the calling thread's hold of {@code lockKey}'s lock (its fencing token, state
   * and listeners); empty if the thread does not hold it.
   */
  public Optional<Lease> currentLease(Object lockKey) {
    return locks.currentLease(lockKey);
  }

  /** How many lock objects the registry keeps now (held ones and those not yet expired). */
  public int size() {
    return locks.size();
  }
}
