package dev.baton.internal.semaphore;

import dev.baton.internal.engine.HeldLock;
import dev.baton.internal.engine.QueueRules;
import dev.baton.internal.session.Durations;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.LockOwner;
import dev.baton.lock.Mutex;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A semaphore of one permit used as a mutex: Curator's {@code InterProcessSemaphoreMutex}. Not
 * reentrant and not bound to a thread: a second acquire, even on the thread that holds the lease,
 * waits for the first lease to be closed, and any thread may close it.
 *
 * <p>{@link #isHeldByCurrentThread()} is true only on the thread that got a lease through a
 * blocking acquire of this object, while that lease is {@link LeaseState#HELD} or {@link
 * LeaseState#SUSPECT}; leases from {@link #acquireAsync()} belong to no thread.
 */
final class SemaphoreMutex implements Mutex {
  private final ZkSemaphore semaphore;
  private final ConcurrentHashMap<Thread, HeldLock> heldByThread = new ConcurrentHashMap<>();

  SemaphoreMutex(ZkSemaphore semaphore) {
    this.semaphore = semaphore;
  }

  @Override
  public String path() {
    return semaphore.path();
  }

  @Override
  public Lease acquire() {
    return acquireBlocking(null, true).orElseThrow();
  }

  @Override
  public Lease acquire(Duration timeout) {
    return acquireBlocking(Durations.checkedTimeout(timeout), true).orElseThrow();
  }

  @Override
  public Optional<Lease> tryAcquire(Duration timeout) {
    return acquireBlocking(Durations.checkedTimeout(timeout), false);
  }

  private Optional<Lease> acquireBlocking(Duration timeout, boolean timeoutThrows) {
    return semaphore.hold(1, timeout, timeoutThrows).map(nodes -> {
      Thread thread = Thread.currentThread();
      HeldLock node = nodes.get(0);
      heldByThread.put(thread, node);
      node.onRelease(() -> heldByThread.remove(thread, node));
      return ZkSemaphore.lease(nodes);
    });
  }

  @Override
  public CompletableFuture<Lease> acquireAsync() {
    return semaphore.acquireAsync();
  }

  @Override
  public CompletableFuture<Lease> acquireAsync(Duration timeout) {
    return semaphore.acquireAsync(timeout);
  }

  @Override
  public boolean isHeldByCurrentThread() {
    HeldLock node = heldByThread.get(Thread.currentThread());
    return node != null && (node.state() == LeaseState.HELD || node.state() == LeaseState.SUSPECT);
  }

  /** The owner of the lease node that holds the permit ({@link LockOwner#node()} under {@code leases}). */
  @Override
  public Optional<LockOwner> holder() {
    return semaphore.holders().stream().findFirst();
  }

  /**
   * Who waits, in the order they will get it: first the holder of the {@code locks} mutex, whose
   * lease node waits for the permit, then the others queued on the mutex. A snapshot from two
   * listings (the mutex's first): a client moving from one to the other between them may show
   * twice, or as waiter and holder.
   */
  @Override
  public List<LockOwner> waiters() {
    List<LockOwner> queued = semaphore.owners("locks", QueueRules.LOCK_PREFIX);
    List<LockOwner> leases = semaphore.owners("leases", PermitCount.PREFIX);
    List<LockOwner> waiters = new ArrayList<>(leases.subList(Math.min(1, leases.size()), leases.size()));
    // The mutex's holder is the one whose lease node waits: list it once.
    int skip = waiters.isEmpty() ? 0 : Math.min(1, queued.size());
    waiters.addAll(queued.subList(skip, queued.size()));
    return List.copyOf(waiters);
  }

  @Override
  public String toString() {
    return "SemaphoreMutex[" + path() + "]";
  }
}
