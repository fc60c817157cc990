package dev.baton.internal;

import dev.baton.AcquireTimeoutException;
import dev.baton.BatonInterruptedException;
import dev.baton.Lease;
import dev.baton.LeaseState;
import dev.baton.LockOwner;
import dev.baton.Mutex;
import dev.baton.SessionLostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * The reentrant mutex: the ordered queue with "no node below mine" as its rule, and a map from
 * thread to held lock for reentrancy. Wire-compatible with Curator's {@code InterProcessMutex}
 * (children {@code _c_<uuid>-lock-<seq>} under the lock path).
 */
public final class ZkMutex implements Mutex {
  static final String PREFIX = "lock-";
  static final QueueWaiter.QueueLayout LAYOUT = QueueWaiter.QueueLayout.of(PREFIX);
  /** Mutual exclusion: wait for the node just below, if any. */
  static final QueueWaiter.QueueRule EXCLUSIVE = lower -> lower.isEmpty() ? null : lower.get(lower.size() - 1);

  private final Session session;
  private final String path;
  private final String serverPath;
  private final ConcurrentHashMap<Thread, HeldLock> heldByThread = new ConcurrentHashMap<>();

  public ZkMutex(Session session, String path) {
    this.session = session;
    this.path = path;
    this.serverPath = session.settings().onServer(path);
  }

  @Override
  public String path() {
    return path;
  }

  @Override
  public Lease acquire() {
    return acquireBlocking(null, true).orElseThrow();
  }

  @Override
  public Lease acquire(Duration timeout) {
    return acquireBlocking(checked(timeout), true).orElseThrow();
  }

  @Override
  public Optional<Lease> tryAcquire(Duration timeout) {
    return acquireBlocking(checked(timeout), false);
  }

  private Optional<Lease> acquireBlocking(Duration timeout, boolean timeoutThrows) {
    session.checkOpen();
    Thread thread = Thread.currentThread();
    HeldLock held = heldByThread.get(thread);
    if (held != null && held.enter()) {
      if (held.state() == LeaseState.LOST) {
        held.exit();
        throw new SessionLostException("The lock " + path + " held by thread '" + thread.getName()
            + "' was lost with its session; close its lease before acquiring again");
      }
      return Optional.of(held.newLease());
    }
    QueueWaiter waiter = newWaiter(thread, timeout);
    CompletableFuture<QueueWaiter.Acquisition> pending = waiter.start(
        timeout == null ? -1 : Durations.timeoutNanos(timeout), () -> new AcquireTimeoutException(path, timeout));
    QueueWaiter.Acquisition acquisition;
    try {
      acquisition = pending.get();
    } catch (InterruptedException e) {
      if (!waiter.cancel()) {
        release(pending.join());
      }
      Thread.currentThread().interrupt();
      throw new BatonInterruptedException("Interrupted while waiting for " + path, e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof AcquireTimeoutException) {
        if (!timeoutThrows) {
          return Optional.empty();
        }
        // A fresh exception, so the stack trace shows the caller rather than the timer.
        throw new AcquireTimeoutException(path, timeout);
      }
      throw Errors.translate(cause, path);
    }
    HeldLock lock = new HeldLock(session, acquisition, path);
    heldByThread.put(thread, lock);
    lock.onRelease(() -> heldByThread.remove(thread, lock));
    return Optional.of(lock.newLease());
  }

  @Override
  public CompletableFuture<Lease> acquireAsync() {
    return acquireAsync(null, false);
  }

  @Override
  public CompletableFuture<Lease> acquireAsync(Duration timeout) {
    return acquireAsync(checked(timeout), true);
  }

  private CompletableFuture<Lease> acquireAsync(Duration timeout, boolean timed) {
    session.checkOpen();
    QueueWaiter waiter = newWaiter(Thread.currentThread(), timeout);
    CompletableFuture<Lease> leased = new CompletableFuture<>();
    waiter.start(timed ? Durations.timeoutNanos(timeout) : -1, () -> new AcquireTimeoutException(path, timeout))
        .whenComplete((acquisition, error) -> Session.executeQuietly(session.eventExecutor(), () -> {
          if (error != null) {
            leased.completeExceptionally(Errors.translate(error, path));
            return;
          }
          Lease lease = new HeldLock(session, acquisition, path).newLease();
          if (!leased.complete(lease)) {
            lease.close(); // cancelled by the caller while the grant was on its way
          }
        }));
    leased.whenComplete((lease, error) -> {
      if (error instanceof CancellationException) {
        waiter.cancel();
      }
    });
    return leased;
  }

  private QueueWaiter newWaiter(Thread thread, Duration timeout) {
    boolean mayWait = timeout == null || !timeout.isZero();
    return new QueueWaiter(session, serverPath, LAYOUT, EXCLUSIVE, OwnerData.forThread(thread), mayWait);
  }

  private void release(QueueWaiter.Acquisition acquisition) {
    new HeldLock(session, acquisition, path).newLease().close();
  }

  @Override
  public boolean isHeldByCurrentThread() {
    HeldLock held = heldByThread.get(Thread.currentThread());
    return held != null && held.state() != LeaseState.RELEASED;
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
    List<String> children;
    try {
      children = Retrying.call(session, path, zk -> zk.getChildren(serverPath, false));
    } catch (RuntimeException e) {
      if (e.getCause() instanceof KeeperException.NoNodeException) {
        return List.of();
      }
      throw e;
    }
    List<LockOwner> owners = new ArrayList<>();
    for (String node : LockNodes.sortedBySequence(children, PREFIX)) {
      String nodePath = serverPath + "/" + node;
      Stat stat = new Stat();
      try {
        byte[] data = Retrying.call(session, nodePath, zk -> zk.getData(nodePath, false, stat));
        owners.add(OwnerData.read(node, data, stat));
      } catch (RuntimeException e) {
        if (!(e.getCause() instanceof KeeperException.NoNodeException)) {
          throw e;
        }
        // Released between the listing and the read.
      }
    }
    return owners;
  }

  private static Duration checked(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout must not be null");
    if (timeout.isNegative()) {
      throw new IllegalArgumentException("timeout must not be negative, was " + timeout);
    }
    return timeout;
  }

  @Override
  public String toString() {
    return "Mutex[" + path + "]";
  }
}
