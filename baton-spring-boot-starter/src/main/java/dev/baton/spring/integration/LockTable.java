package dev.baton.spring.integration;

import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import dev.baton.lock.MutexLock;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;

/**
 * The part of {@code BatonLockRegistry} that does not depend on Spring Integration's generation:
 * one lock object per key until expired, and the lease check {@code renewLock} makes. Spring
 * Integration 7 changed the registry interfaces (generic, {@code DistributedLock}), so each starter
 * has its own registry class over this table.
 *
 * @param <L> the lock type the registry hands out
 */
final class LockTable<L extends Lock> {
  private final Function<String, Mutex> mutexes;
  private final LockKeyLayout layout;
  private final Function<MutexLock, L> wrap;
  private final Map<String, Entry<L>> locks = new ConcurrentHashMap<>();

  private static final class Entry<L> {
    final MutexLock mutexLock;
    final L lock;
    volatile long lastObtainedMillis;

    Entry(MutexLock mutexLock, L lock) {
      this.mutexLock = mutexLock;
      this.lock = lock;
    }
  }

  LockTable(Function<String, Mutex> mutexes, LockKeyLayout layout, Function<MutexLock, L> wrap) {
    this.mutexes = Objects.requireNonNull(mutexes, "mutexes");
    this.layout = Objects.requireNonNull(layout, "layout");
    this.wrap = wrap;
  }

  L obtain(Object lockKey) {
    String name = layout.nameFor(lockKey);
    Entry<L> entry = locks.computeIfAbsent(name, n -> {
      MutexLock lock = MutexLock.of(mutexes.apply(n));
      return new Entry<>(lock, wrap.apply(lock));
    });
    entry.lastObtainedMillis = System.currentTimeMillis();
    return entry.lock;
  }

  void expireUnusedOlderThan(long age) {
    long now = System.currentTimeMillis();
    locks.entrySet().removeIf(e -> now - e.getValue().lastObtainedMillis >= age && !e.getValue().mutexLock.isHeldInThisProcess());
  }

  /**
   * The lock of {@code lockKey} if the calling thread holds it on a valid lease.
   *
   * @throws IllegalStateException if it does not hold it, or the lease is not valid
   */
  L heldByCurrentThread(Object lockKey) {
    String name = layout.nameFor(lockKey);
    Entry<L> entry = locks.get(name);
    Lease lease = entry == null ? null : entry.mutexLock.currentLease().orElse(null);
    if (lease == null) {
      throw new IllegalStateException("cannot renew the lock " + name + ": the current thread does not hold it");
    }
    if (!lease.isValid()) {
      throw new IllegalStateException("cannot renew the lock " + name + ": its lease is " + lease.state());
    }
    return entry.lock;
  }

  /** The lease behind the calling thread's innermost hold of {@code lockKey}'s lock, if it holds it. */
  Optional<Lease> currentLease(Object lockKey) {
    Entry<L> entry = locks.get(layout.nameFor(lockKey));
    return entry == null ? Optional.empty() : entry.mutexLock.currentLease();
  }

  int size() {
    return locks.size();
  }
}
