package dev.baton.internal;

import dev.baton.Lease;
import dev.baton.LockOwner;
import dev.baton.Mutex;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The read or the write half of a {@link ZkReadWriteLock}, as a {@link Mutex}: acquisition is its
 * {@link QueueLock}'s; {@link #holder()} and {@link #waiters()} show nodes of its own kind only.
 */
final class ReadWriteLockHalf implements Mutex {
  private final ZkReadWriteLock parent;
  private final QueueLock lock;
  private final boolean write;

  ReadWriteLockHalf(ZkReadWriteLock parent, QueueLock lock, boolean write) {
    this.parent = parent;
    this.lock = lock;
    this.write = write;
  }

  @Override
  public String path() {
    return parent.path();
  }

  @Override
  public Lease acquire() {
    return lock.acquireBlocking(null, true).orElseThrow();
  }

  @Override
  public Lease acquire(Duration timeout) {
    return lock.acquireBlocking(QueueLock.checked(timeout), true).orElseThrow();
  }

  @Override
  public Optional<Lease> tryAcquire(Duration timeout) {
    return lock.acquireBlocking(QueueLock.checked(timeout), false);
  }

  @Override
  public CompletableFuture<Lease> acquireAsync() {
    return lock.acquireAsync(null, false);
  }

  @Override
  public CompletableFuture<Lease> acquireAsync(Duration timeout) {
    return lock.acquireAsync(QueueLock.checked(timeout), true);
  }

  @Override
  public boolean isHeldByCurrentThread() {
    return lock.isHeldByCurrentThread();
  }

  /** The writer holding, or the first of the readers holding. */
  @Override
  public Optional<LockOwner> holder() {
    for (String node : ownKind(parent.queue().holding())) {
      List<LockOwner> owner = parent.owners(List.of(node));
      if (!owner.isEmpty()) {
        return Optional.of(owner.get(0));
      }
    }
    return Optional.empty(); // nobody, or every holder left between the listing and the read
  }

  @Override
  public List<LockOwner> waiters() {
    return parent.owners(ownKind(parent.queue().waiting()));
  }

  private List<String> ownKind(List<String> nodes) {
    List<String> own = new ArrayList<>();
    for (String node : nodes) {
      if (ReadWriteRules.isWrite(node) == write) {
        own.add(node);
      }
    }
    return own;
  }

  @Override
  public String toString() {
    return (write ? "WriteLock[" : "ReadLock[") + parent.path() + "]";
  }
}
