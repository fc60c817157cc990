package dev.baton.internal.lock;

import dev.baton.lock.LockOwner;
import dev.baton.lock.Mutex;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The read or the write half of a {@link ZkReadWriteLock}, as a {@link Mutex}: acquisition is its
 * {@link QueueLock}'s; {@link #holder()} and {@link #waiters()} show nodes of its own kind only.
 */
final class ReadWriteLockHalf extends QueueMutex {
  private final ZkReadWriteLock parent;
  private final boolean write;

  ReadWriteLockHalf(ZkReadWriteLock parent, QueueLock lock, boolean write) {
    super(lock);
    this.parent = parent;
    this.write = write;
  }

  @Override
  public String path() {
    return parent.path();
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
