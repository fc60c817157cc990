package dev.baton.internal.observe;

import dev.baton.lock.LockOwner;
import dev.baton.lock.Mutex;
import dev.baton.lock.ReadWriteLock;
import java.util.List;

/** A read-write lock whose halves tell the client's observer what they do, as {@code read-lock} and {@code write-lock}. */
final class ObservedReadWriteLock implements ReadWriteLock {
  private final ReadWriteLock delegate;
  private final Mutex readLock;
  private final Mutex writeLock;

  ObservedReadWriteLock(Observation observation, ReadWriteLock delegate) {
    this.delegate = delegate;
    this.readLock = observation.mutex("read-lock", delegate.readLock());
    this.writeLock = observation.mutex("write-lock", delegate.writeLock());
  }

  @Override
  public String path() {
    return delegate.path();
  }

  @Override
  public Mutex readLock() {
    return readLock;
  }

  @Override
  public Mutex writeLock() {
    return writeLock;
  }

  @Override
  public List<LockOwner> holders() {
    return delegate.holders();
  }

  @Override
  public List<LockOwner> waiters() {
    return delegate.waiters();
  }

  @Override
  public String toString() {
    return delegate.toString();
  }
}
