package dev.baton.internal.leadership;

import dev.baton.BatonInterruptedException;
import dev.baton.leader.LeaderSelector;
import dev.baton.leader.LeaderTask;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.Mutex;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link LeaderSelector} of every backend, over its {@link ElectionQueue} (a {@link Mutex} on
 * Redis and SQL, Curator's {@code LeaderSelector} layout on ZooKeeper): once the lock on the
 * election's name is granted, the task runs on a thread of its own; when the lease turns SUSPECT
 * or LOST, listeners are told and then the task's thread is interrupted; when the task returns,
 * listeners are told (if not yet) and the lock is released, so the next participant leads only
 * after that.
 */
public final class MutexLeaderSelector extends MutexCandidacy implements LeaderSelector {
  private static final Logger log = LoggerFactory.getLogger(MutexLeaderSelector.class);

  private final LeaderTask task;
  private volatile boolean autoRequeue;

  /** As {@link MutexLeaderLatch#MutexLeaderLatch}, with the {@code task} to run while leading. */
  public MutexLeaderSelector(Mutex mutex, String participantId, LeaderTask task, Executor noticeExecutor,
      Runnable checkOpen) {
    this(new MutexElectionQueue(mutex, noticeExecutor, checkOpen), participantId, task);
  }

  /**
   * As {@link MutexLeaderLatch#MutexLeaderLatch(ElectionQueue, String)}, with the {@code task} to
   * run while leading.
   */
  public MutexLeaderSelector(ElectionQueue queue, String participantId, LeaderTask task) {
    super(queue, participantId, "LeaderSelector");
    this.task = Objects.requireNonNull(task, "task");
  }

  @Override
  public MutexLeaderSelector autoRequeue() {
    autoRequeue = true;
    return this;
  }

  @Override
  public void start() {
    startOnce();
  }

  @Override
  public boolean requeue() {
    synchronized (this) {
      if (phase != Phase.STARTED) {
        throw new IllegalStateException(this + (phase == Phase.CLOSED ? " is closed" : " is not started"));
      }
      if (current != null) {
        return false;
      }
      throwIfFailed();
    }
    checkOpen();
    join();
    return true;
  }

  @Override
  Runnable leaseChanged(Term term, LeaseState state) {
    switch (state) {
      case HELD -> {
        if (term.task == null) {
          gain(term);
          startTask(term);
        }
      }
      case SUSPECT, LOST -> {
        if (term.task != null) {
          return revoke(term);
        } else if (state == LeaseState.LOST) {
          // Granted while the backend could not vouch for it, and lost before it could: never led.
          end(term);
          Lease lock = term.lease.lock();
          return () -> {
            queue.releaseLost(lock);
            join();
          };
        }
        // Granted while suspect: the task starts if the lease turns HELD.
      }
      case RELEASED -> {
        if (term.task != null) {
          lose(term);
          if (!term.lease.isClosed()) {
            return revoke(term); // released under the task (the client closed): stop it
          }
        } else {
          end(term); // released before the task began: the client closed
        }
      }
    }
    return null;
  }

  /** The task's own thread steps down when the task returns; nothing more to do here. */
  @Override
  void steppedDown(Term term) {}

  private void startTask(Term term) {
    String id = participantId.length() > 40 ? participantId.substring(0, 40) + "..." : participantId;
    term.task = new Thread(() -> lead(term), "baton-leader-" + id + "-" + term.number);
    term.task.setDaemon(true);
    term.task.start();
  }

  /**
   * Takes leadership away from a running task; under the lock. Returns the interrupt of its
   * thread, to run once listeners have been told.
   */
  private Runnable revoke(Term term) {
    lose(term);
    if (term.revoked) {
      return null;
    }
    term.revoked = true;
    Thread thread = term.task;
    return thread::interrupt;
  }

  private void lead(Term term) {
    Leadership lease = term.lease;
    try {
      boolean revoked;
      synchronized (this) {
        revoked = term.revoked;
      }
      if (!revoked) {
        task.lead(lease);
      }
    } catch (InterruptedException | BatonInterruptedException e) {
      log.debug("{}: the task ended on an interrupt", this);
    } catch (Throwable e) {
      log.error("{}: the leader task threw; leadership is given up", this, e);
    } finally {
      // Steps down: listeners are told (of a RELEASED lease) before the lock is released, so
      // before the next leader can be granted it, unless they heard of a loss already.
      lease.close();
      boolean again;
      synchronized (this) {
        lose(term); // already told by the close above; kept so no path ends a leading term
        end(term);
        again = autoRequeue && phase == Phase.STARTED;
      }
      listeners.deliver();
      Thread.interrupted(); // this thread ends here; a late interrupt of it means nothing
      if (again) {
        join();
      }
    }
  }

  @Override
  public void close() {
    Term term;
    Leadership lease = null;
    CompletableFuture<Lease> queued = null;
    Runnable interrupt = null;
    synchronized (this) {
      if (phase == Phase.CLOSED) {
        return;
      }
      phase = Phase.CLOSED;
      signalChange();
      term = current;
      if (term == null) {
        return;
      }
      if (term.task != null) {
        interrupt = revoke(term); // the task's thread releases the lock once the task returns
        term = null;
      } else {
        current = null;
        lease = term.lease;
        queued = term.queued;
      }
    }
    listeners.deliver();
    if (interrupt != null) {
      interrupt.run();
    }
    if (term != null) {
      withdraw(term, lease, queued);
    }
  }
}
