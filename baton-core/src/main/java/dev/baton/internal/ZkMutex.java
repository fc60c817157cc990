package dev.baton.internal;

import dev.baton.Lease;
import dev.baton.LockOwner;
import dev.baton.Mutex;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The reentrant mutex: the ordered queue with "no node below mine" as its rule, and a map from
 * thread to held lock for reentrancy (both in {@link QueueLock}, shared with the read-write lock).
 * Wire-compatible with Curator's {@code InterProcessMutex} (children {@code _c_<uuid>-lock-<seq>}
 * under the lock path).
 */
public final class ZkMutex implements Mutex {
  static final String PREFIX = "lock-";
  static final QueueWaiter.QueueLayout LAYOUT = QueueWaiter.QueueLayout.of(PREFIX);
  /** Mutual exclusion: wait for the node just below, if any. */
  static final QueueWaiter.QueueRule EXCLUSIVE = lower -> lower.isEmpty() ? null : lower.get(lower.size() - 1);

  private final Session session;
  private final String path;
  private final String serverPath;
  private final QueueLock lock;

  public ZkMutex(Session session, String path) {
    this.session = session;
    this.path = path;
    this.serverPath = session.settings().onServer(path);
    this.lock = new QueueLock(session, path, LAYOUT, EXCLUSIVE, QueueLock.QUEUE);
  }

  @Override
  public String path() {
    return path;
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

  @Override
  public Optional<LockOwner> holder() {
    List<LockOwner> queue = queue();
    return queue.isEmpty() ? Optional.empty() : Optional.of(queue.get(0));
  }

  @Override
  public List<LockOwner> waiters() {
    List<LockOwner> queue = queue();
    return queue.isEmpty() ? List.of() : List.copyOf(queue.subList(1, queue.size()));
  }

  private List<LockOwner> queue() {
    session.checkOpen();
    List<String> children = QueueLock.children(session, path, serverPath);
    return QueueLock.owners(session, serverPath, LockNodes.sortedBySequence(children, PREFIX));
  }

  @Override
  public String toString() {
    return "Mutex[" + path + "]";
  }
}
