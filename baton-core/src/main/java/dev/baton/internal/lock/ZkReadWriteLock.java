package dev.baton.internal.lock;

import dev.baton.internal.engine.LockListing;
import dev.baton.internal.engine.OwnerData;
import dev.baton.internal.engine.QueueWaiter;
import dev.baton.internal.session.Session;
import dev.baton.lock.LockOwner;
import dev.baton.lock.Mutex;
import dev.baton.lock.ReadWriteLock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The read-write lock: two {@link QueueLock}s on one queue of {@code __READ__} and {@code __WRIT__}
 * nodes, with the rules of {@link ReadWriteRules}; what ties the halves together is decided here,
 * before a thread queues. Wire-compatible with Curator's {@code InterProcessReadWriteLock}.
 *
 * <ul>
 *   <li>Downgrade: a thread holding the write lock gets the read lock without queueing, on a read
 *       node at its write node's place ({@link DowngradeNode}).
 *   <li>Upgrade: refused at once. Its write node would queue above its own read node and wait for
 *       it forever; Curator lets that happen, a self-deadlock that only a timeout ends.
 * </ul>
 */
public final class ZkReadWriteLock implements ReadWriteLock {
  private final Session session;
  private final String path;
  private final String serverPath;
  private final QueueLock reads;
  private final QueueLock writes;
  private final Mutex readLock;
  private final Mutex writeLock;

  public ZkReadWriteLock(Session session, String path) {
    this.session = session;
    this.path = path;
    this.serverPath = session.settings().onServer(path);
    this.reads = new QueueLock(
        session, path, ReadWriteRules.READERS, ReadWriteRules.READER, this::admitReader);
    this.writes = new QueueLock(
        session, path, ReadWriteRules.WRITERS, ReadWriteRules.WRITER, this::admitWriter);
    this.readLock = new ReadWriteLockHalf(this, reads, false);
    this.writeLock = new ReadWriteLockHalf(this, writes, true);
  }

  /** Downgrade: a new read node in the queue would wait behind this thread's own write node. */
  private Optional<QueueWaiter.Acquisition> admitReader(Thread thread, Duration timeout) {
    Optional<QueueLock.Hold> write = writes.heldBy(thread);
    if (write.isEmpty()) {
      return Optional.empty();
    }
    byte[] data = OwnerData.forThread(thread);
    return Optional.of(DowngradeNode.create(session, path, write.get(), data, timeout));
  }

  /** Upgrade: only a thread holding no read lock may queue as a writer. */
  private Optional<QueueWaiter.Acquisition> admitWriter(Thread thread, Duration timeout) {
    if (reads.heldBy(thread).isPresent()) {
      throw new IllegalStateException("Thread '" + thread.getName() + "' holds the read lock of " + path
          + " and asked for its write lock: upgrading is not supported, as the write lock would wait"
          + " for this thread's own read lock forever. Close every read lease first, or take the"
          + " write lock first and then the read lock (downgrade)");
    }
    return Optional.empty();
  }

  @Override
  public String path() {
    return path;
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
    return owners(queue().holding());
  }

  @Override
  public List<LockOwner> waiters() {
    return owners(queue().waiting());
  }

  /** The node names, split into holders and waiters; read from the ensemble. */
  ReadWriteRules.Queue queue() {
    session.checkOpen();
    return ReadWriteRules.queue(LockListing.children(session, path, serverPath));
  }

  /** Who owns {@code nodes}, in order; nodes gone meanwhile are left out. */
  List<LockOwner> owners(List<String> nodes) {
    return LockListing.owners(session, serverPath, nodes);
  }

  @Override
  public String toString() {
    return "ReadWriteLock[" + path + "]";
  }
}
