/**
 * Locks, backend-neutral: {@link dev.baton.lock.Lease} (what every lock-like recipe hands out),
 * {@link dev.baton.lock.Mutex}, {@link dev.baton.lock.MultiLock}, {@link
 * dev.baton.lock.ReadWriteLock}, {@link dev.baton.lock.Semaphore}, fencing and the lock
 * exceptions. No ZooKeeper type appears here, so every backend implements the same interfaces.
 */
package dev.baton.lock;
