package dev.baton.spring.integration;

import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import dev.baton.lock.MutexLock;
import java.util.Optional;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * A Spring Integration {@code LockRegistry} on Baton's mutex, on either backend: a drop-in for
 * {@code ZookeeperLockRegistry} and {@code RedisLockRegistry} wherever a registry is injected (an
 * aggregator's lock registry, {@code LockRegistryLeaderInitiator}, {@code executeLocked}).
 *
 * <pre>{@code
 * LockRegistry locks = new BatonLockRegistry(baton::mutex, LockKeyLayout.zookeeper("/locks"));
 * locks.executeLocked("order-42", Duration.ofSeconds(5), () -> ship(order));
 * }</pre>
 *
 * <p>Each lock is a {@link MutexLock}: reentrant per thread, unlocked only by the thread that
 * locked it ({@code IllegalMonitorStateException} otherwise, as both Spring registries do), no
 * conditions; {@link MutexLock} lists how it differs from a local lock. The same key gives the same
 * lock object until {@link #expireUnusedOlderThan expired}, so holds count per thread across
 * {@code obtain} calls.
 *
 * <p><b>Connection loss and timeouts</b>: a waiter keeps its place across a short loss and queues
 * again after a session expiry; {@code tryLock(time, unit)} returns {@code false} when the time
 * passes, leaving nothing on the server. A lock whose lease was lost while held throws {@link
 * dev.baton.lock.LockLostException} from {@code unlock()}, where {@code RedisLockRegistry} throws
 * {@code ConcurrentModificationException}.
 *
 * <p>This class is the Spring Integration 6 registry ({@code baton-spring-boot-starter}, Boot 3.5);
 * {@code baton-spring-boot4-starter} has one on Spring Integration 7's {@code DistributedLock}.
 *
 * <p><b>Renewal</b> is automatic (a ZooKeeper lease lives with the session; a Redis lease is renewed
 * by the client while held), so {@link #renewLock(Object)} only checks that the calling thread
 * still holds a valid lease, and throws {@code IllegalStateException} otherwise, as {@code
 * RedisLockRegistry.renewLock} does for a lock it cannot renew.
 */
public final class BatonLockRegistry implements ExpirableLockRegistry, RenewableLockRegistry {
  private final LockTable<MutexLock> locks;

  /**
   * A registry whose locks are {@code mutexes.apply(layout.nameFor(key))}: pass {@code baton::mutex}
   * or {@code redisBaton::mutex}, or a lambda that adds {@code MutexOptions}.
   */
  public BatonLockRegistry(Function<String, Mutex> mutexes, LockKeyLayout layout) {
    this.locks = new LockTable<>(mutexes, layout, Function.identity());
  }

  /**
   * The lock for {@code lockKey}; cheap, nothing is sent until it is locked.
   *
   * @throws IllegalArgumentException if the layout cannot take the key (naming it)
   */
  @Override
  public Lock obtain(Object lockKey) {
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
   * Checks that the calling thread holds the lock of {@code lockKey} on a valid lease; Baton renews
   * leases by itself.
   *
   * @throws IllegalStateException if the calling thread does not hold it, or its lease is not
   *     valid (connection suspended, or lost)
   */
  @Override
  public void renewLock(Object lockKey) {
    locks.heldByCurrentThread(lockKey);
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
