package dev.baton.internal.lock;

import dev.baton.internal.engine.LockListing;
import dev.baton.internal.engine.LockNodes;
import dev.baton.internal.engine.QueueRules;
import dev.baton.internal.engine.QueueWaiter;
import dev.baton.internal.session.Session;
import dev.baton.lock.LockOwner;
import dev.baton.lock.MutexOptions;
import java.util.List;
import java.util.Optional;

/**
 * The reentrant mutex: the ordered queue with "no node below mine" as its rule, and a map from
 * thread to held lock for reentrancy (both in {@link QueueLock}, shared with the read-write lock).
 * Wire-compatible with Curator's {@code InterProcessMutex} (children {@code _c_<uuid>-lock-<seq>}
 * under the lock path).
 */
public final class ZkMutex extends QueueMutex {
  private static final QueueWaiter.QueueLayout LAYOUT = QueueRules.LOCK_LAYOUT;
  private static final QueueWaiter.QueueRule EXCLUSIVE = QueueRules.EXCLUSIVE;

  private final Session session;
  private final String path;
  private final String serverPath;

  public ZkMutex(Session session, String path) {
    this(session, path, MutexOptions.defaults());
  }

  public ZkMutex(Session session, String path, MutexOptions options) {
    super((options.sharesNode()
        ? new QueueLock(session, path, LAYOUT, EXCLUSIVE, new Cohort(session, path, LAYOUT, EXCLUSIVE, options))
        : new QueueLock(session, path, LAYOUT, EXCLUSIVE, QueueLock.QUEUE)).withLockDelay(options.lockDelay()));
    this.session = session;
    this.path = path;
    this.serverPath = session.settings().onServer(path);
  }

  @Override
  public String path() {
    return path;
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
    List<String> children = LockListing.children(session, path, serverPath);
    return LockListing.owners(session, serverPath, LockNodes.sortedBySequence(children, QueueRules.LOCK_PREFIX));
  }

  @Override
  public String toString() {
    return "Mutex[" + path + "]";
  }
}
