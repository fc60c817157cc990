package dev.baton.internal.semaphore;

import dev.baton.internal.engine.QueueWaiter;
import dev.baton.internal.session.Nodes;
import dev.baton.internal.session.Session;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * The lease nodes of one attempt at a semaphore, created together under {@code <path>/leases}:
 * one {@link QueueWaiter} each, whose rule never blocks ({@link PermitCount.Recorder}), so each
 * brings protected creation, recovery of a lost create reply by its UUID and requeueing after
 * expiry, and grants as soon as its node and the listing sent with it are back. All creates are
 * sent back to back, so the whole batch costs one round trip.
 *
 * <p>All or nothing: the first failure withdraws the others, and {@link #cancel()} removes every
 * node, including those whose grant is still on its way (deleted when it arrives). The waiters'
 * futures are followed on {@code offWaiterMonitor}, never under a waiter's monitor, so withdrawing
 * one waiter from another's callback cannot deadlock.
 */
final class PermitNodeBatch {
  private final Session session;
  private final List<QueueWaiter> waiters = new ArrayList<>();
  private final PermitCount.Recorder[] recorders;
  private final QueueWaiter.Acquisition[] created;
  private final CompletableFuture<List<QueueWaiter.Acquisition>> all = new CompletableFuture<>();
  private int pending;
  private boolean cancelled;

  PermitNodeBatch(Session session, String leasesPath, int count, byte[] data) {
    this.session = session;
    this.recorders = new PermitCount.Recorder[count];
    this.created = new QueueWaiter.Acquisition[count];
    this.pending = count;
    for (int i = 0; i < count; i++) {
      recorders[i] = new PermitCount.Recorder();
      waiters.add(new QueueWaiter(session, leasesPath, PermitCount.LAYOUT, recorders[i], data, true));
    }
  }

  /** Sends the creates; the future completes once every node is there, or fails on the first failure. */
  CompletableFuture<List<QueueWaiter.Acquisition>> start(Supplier<RuntimeException> onTimeout, Executor offWaiterMonitor) {
    for (int i = 0; i < waiters.size(); i++) {
      int index = i;
      waiters.get(i).start(-1, onTimeout).whenCompleteAsync(
          (acquisition, error) -> onCreated(index, acquisition, error), offWaiterMonitor);
    }
    return all;
  }

  private void onCreated(int index, QueueWaiter.Acquisition acquisition, Throwable error) {
    boolean unwanted;
    boolean complete = false;
    synchronized (this) {
      unwanted = cancelled || all.isDone();
      if (!unwanted && error == null) {
        created[index] = acquisition;
        complete = --pending == 0;
      }
    }
    if (unwanted) {
      delete(acquisition);
    } else if (error != null) {
      cancel();
      all.completeExceptionally(error);
    } else if (complete) {
      all.complete(List.of(created));
    }
  }

  /** The nodes, once all are created. */
  synchronized List<QueueWaiter.Acquisition> created() {
    return List.of(created);
  }

  /** The names of the nodes, once all are created. */
  synchronized Set<String> names() {
    return PermitCount.names(List.of(created));
  }

  /** The verdict on the listings that came back with the creates; only once all are created. */
  synchronized PermitCount.Verdict verdict(int permits) {
    return PermitCount.afterCreate(created, recorders, permits);
  }

  /** Withdraws every waiter (each removes its own node) and deletes the nodes already granted. */
  void cancel() {
    List<QueueWaiter.Acquisition> granted = new ArrayList<>();
    synchronized (this) {
      if (cancelled) {
        return;
      }
      cancelled = true;
      for (QueueWaiter.Acquisition acquisition : created) {
        if (acquisition != null) {
          granted.add(acquisition);
        }
      }
    }
    waiters.forEach(QueueWaiter::cancel);
    granted.forEach(this::delete);
  }

  private void delete(QueueWaiter.Acquisition acquisition) {
    if (acquisition != null) {
      Nodes.deleteInBackground(session, acquisition.handle(), acquisition.serverNodePath());
    }
  }
}
