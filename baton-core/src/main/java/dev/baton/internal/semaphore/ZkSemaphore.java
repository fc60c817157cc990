package dev.baton.internal.semaphore;

import dev.baton.BatonInterruptedException;
import dev.baton.internal.engine.HeldLock;
import dev.baton.internal.engine.LockListing;
import dev.baton.internal.engine.LockNodes;
import dev.baton.internal.engine.OwnerData;
import dev.baton.internal.engine.QueueWaiter;
import dev.baton.internal.session.Durations;
import dev.baton.internal.session.Errors;
import dev.baton.internal.session.Session;
import dev.baton.lock.AcquireTimeoutException;
import dev.baton.lock.Lease;
import dev.baton.lock.LockOwner;
import dev.baton.lock.Mutex;
import dev.baton.lock.Semaphore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * The counting semaphore, wire-compatible with Curator's {@code InterProcessSemaphoreV2}: each
 * acquisition is a {@link PermitRequest}, each permit a lease node kept as a {@link HeldLock}.
 */
public final class ZkSemaphore implements Semaphore {
  private final Session session;
  private final String path;
  private final String serverPath;
  private final int permits;

  /** {@code path} must be validated already; {@code permits} is checked here. */
  public ZkSemaphore(Session session, String path, int permits) {
    if (permits < 1) {
      throw new IllegalArgumentException("permits of semaphore " + path + " must be at least 1, was " + permits);
    }
    this.session = session;
    this.path = path;
    this.serverPath = session.settings().onServer(path);
    this.permits = permits;
  }

  /** The non-reentrant mutex of Curator's {@code InterProcessSemaphoreMutex}: a semaphore of one. */
  public static Mutex mutex(Session session, String path) {
    return new SemaphoreMutex(new ZkSemaphore(session, path, 1));
  }

  @Override
  public String path() {
    return path;
  }

  @Override
  public int permits() {
    return permits;
  }

  @Override
  public Lease acquire() {
    return lease(hold(1, null, true).orElseThrow());
  }

  @Override
  public Lease acquire(Duration timeout) {
    return lease(hold(1, Durations.checkedTimeout(timeout), true).orElseThrow());
  }

  @Override
  public Optional<Lease> tryAcquire(Duration timeout) {
    return hold(1, Durations.checkedTimeout(timeout), false).map(ZkSemaphore::lease);
  }

  @Override
  public Lease acquire(int count, Duration timeout) {
    return lease(hold(checked(count), Durations.checkedTimeout(timeout), true).orElseThrow());
  }

  @Override
  public Optional<Lease> tryAcquire(int count, Duration timeout) {
    return hold(checked(count), Durations.checkedTimeout(timeout), false).map(ZkSemaphore::lease);
  }

  /**
   * Waits on the caller's thread for {@code count} permits ({@code timeout == null}: no limit).
   * Empty on timeout unless {@code timeoutThrows}.
   */
  Optional<List<HeldLock>> hold(int count, Duration timeout, boolean timeoutThrows) {
    session.checkOpen();
    PermitRequest request = newRequest(count, timeout);
    CompletableFuture<List<QueueWaiter.Acquisition>> pending = request.start(
        timeout == null ? -1 : Durations.timeoutNanos(timeout), () -> new AcquireTimeoutException(path, timeout));
    List<QueueWaiter.Acquisition> acquired;
    try {
      acquired = pending.get();
    } catch (InterruptedException e) {
      if (!request.cancel()) {
        // Granted (or failed) meanwhile: give back what was granted.
        pending.thenAccept(granted -> lease(held(granted)).close());
      }
      Thread.currentThread().interrupt();
      throw new BatonInterruptedException("Interrupted while waiting for a permit of " + path, e);
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
    return Optional.of(held(acquired));
  }

  @Override
  public CompletableFuture<Lease> acquireAsync() {
    return acquireAsync(null, false);
  }

  @Override
  public CompletableFuture<Lease> acquireAsync(Duration timeout) {
    return acquireAsync(Durations.checkedTimeout(timeout), true);
  }

  private CompletableFuture<Lease> acquireAsync(Duration timeout, boolean timed) {
    session.checkOpen();
    PermitRequest request = newRequest(1, timeout);
    CompletableFuture<Lease> leased = new CompletableFuture<>();
    request.start(timed ? Durations.timeoutNanos(timeout) : -1, () -> new AcquireTimeoutException(path, timeout))
        .whenComplete((acquired, error) -> Session.executeQuietly(session.eventExecutor(), () -> {
          if (error != null) {
            leased.completeExceptionally(Errors.translate(error, path));
            return;
          }
          Lease lease = lease(held(acquired));
          if (!leased.complete(lease)) {
            lease.close(); // cancelled by the caller while the grant was on its way
          }
        }));
    leased.whenComplete((lease, error) -> {
      if (error instanceof CancellationException) {
        request.cancel();
      }
    });
    return leased;
  }

  private PermitRequest newRequest(int count, Duration timeout) {
    boolean mayWait = timeout == null || !timeout.isZero();
    return new PermitRequest(session, path, permits, count, OwnerData.forThread(Thread.currentThread()), mayWait);
  }

  private List<HeldLock> held(List<QueueWaiter.Acquisition> acquired) {
    List<HeldLock> nodes = new ArrayList<>(acquired.size());
    for (QueueWaiter.Acquisition acquisition : acquired) {
      nodes.add(new HeldLock(session, acquisition, path));
    }
    return nodes;
  }

  static Lease lease(List<HeldLock> nodes) {
    return new PermitLease(nodes);
  }

  @Override
  public List<LockOwner> holders() {
    List<LockOwner> leases = owners("leases", PermitCount.PREFIX);
    return List.copyOf(leases.subList(0, Math.min(permits, leases.size())));
  }

  /** The owners of the nodes of one kind under {@code <path>/<dir>}, oldest first. */
  List<LockOwner> owners(String dir, String prefix) {
    session.checkOpen();
    String parent = serverPath + "/" + dir;
    List<String> children = LockListing.children(session, path, parent);
    return LockListing.owners(session, parent, LockNodes.sortedBySequence(children, prefix));
  }

  private int checked(int count) {
    if (count < 1 || count > permits) {
      throw new IllegalArgumentException("permits must be between 1 and " + permits
          + " (the permits of semaphore " + path + "), was " + count);
    }
    return count;
  }

  @Override
  public String toString() {
    return "Semaphore[" + path + ", " + permits + " permits]";
  }
}
