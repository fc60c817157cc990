package dev.baton.lock;

import dev.baton.SessionLostException;
import java.util.List;

/**
 * A read-write lock across processes: many readers or one writer. Wire-compatible with Curator's
 * {@code InterProcessReadWriteLock}, so Baton and Curator clients can share a path while a team
 * moves from one to the other. Each half is a {@link Mutex} handing out ordinary {@link Lease}s:
 * connection loss and session expiry, while waiting or holding, behave as described there and in
 * {@link Lease}; a timeout removes the waiter's node, as for any {@link Mutex}.
 *
 * <pre>{@code
 * ReadWriteLock prices = baton.readWriteLock("/locks/prices");
 * try (Lease lease = prices.readLock().acquire(Duration.ofSeconds(5))) {
 *   show(cache.get(sku));
 * }
 * }</pre>
 *
 * <ul>
 *   <li><b>Order.</b> Readers and writers wait in one queue, first come first served. A waiting
 *       writer also keeps the readers that queued after it waiting, so a stream of readers never
 *       starves a writer.
 *   <li><b>Reentrancy.</b> Both halves are reentrant per thread and per {@code ReadWriteLock}
 *       object, through the blocking methods. As with {@link Mutex#acquireAsync()}, the
 *       asynchronous methods are bound to no thread: they queue anew each time, even behind the
 *       caller's own lock.
 *   <li><b>Downgrade.</b> A thread that holds the write lock gets the read lock at once; it may
 *       then release the write lock and keep reading. Readers queued behind it come in as soon as
 *       the write lock is released; writers already waiting stay behind its read lock. The
 *       downgrade sends one create on the write lease's session: while the connection is down it
 *       is retried within the caller's timeout, and if that session is lost it fails with
 *       {@link SessionLostException}. The create is checked against the write node in one
 *       transaction, so a downgrade never puts a reader beside a later writer: if the write lease
 *       is closed (from another thread) before the downgrade completes, it fails with {@link
 *       IllegalStateException} and no read lock is taken; if the write node is gone while the
 *       session lives (deleted from outside), it fails with {@code dev.baton.NodeMissingException} (ZooKeeper).
 *   <li><b>No upgrade.</b> A thread that holds the read lock but not the write lock and asks for
 *       the write lock (blocking methods) gets an {@link IllegalStateException} at once: it would
 *       otherwise wait behind its own read lock forever (Curator's does). Release every read lease
 *       first, or take the write lock first and downgrade.
 *   <li><b>Fencing tokens</b> ({@link Lease#fencingToken()}, the zxid that created the lease's
 *       node). Strictly increasing from one writer to the next, and along the queue between a
 *       writer and the readers around it: a reader's token is larger than every earlier writer's
 *       and smaller than every later writer's. Readers that hold together have different tokens
 *       in no particular order. A downgraded read lease carries its write lease's token.
 * </ul>
 *
 * <p>{@link Mutex#holder()} and {@link Mutex#waiters()} of each half show its own kind only: the
 * write lock's holder is the writer holding, if any; the read lock's holder is the first of the
 * readers holding (see {@link #holders()} for all of them).
 */
public interface ReadWriteLock {

  /** The lock's path, as given. */
  String path();

  /** The shared half: held by any number of readers at once, never beside a writer. */
  Mutex readLock();

  /** The exclusive half: held by one writer, and by nobody else meanwhile. */
  Mutex writeLock();

  /**
   * Who holds the lock now, read from the ensemble: one writer (with the read node it added by
   * downgrading, if any), or every reader ahead of the first waiting writer. Empty if free.
   */
  List<LockOwner> holders();

  /** Readers and writers queued behind the holders, in the order they will get the lock. */
  List<LockOwner> waiters();
}
