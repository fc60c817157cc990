package dev.baton.internal.leader;

import dev.baton.BatonInterruptedException;
import dev.baton.internal.engine.QueueRules;
import dev.baton.internal.session.Session;
import dev.baton.leader.LeaderSelector;
import dev.baton.leader.LeaderTask;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader selector: a {@link Candidacy} that runs the task on a thread of its own once its
 * lease is held, interrupts it when the lease turns suspect or lost, and gives the lease up when
 * the task returns. Wire-compatible with Curator's {@code LeaderSelector}, which queues on an
 * {@code InterProcessMutex}: nodes {@code _c_<uuid>-lock-<seq>} holding the participant id.
 *
 * <p>The node is deleted only once the task has returned (or the session ends), so a task that
 * does not stop at once never runs beside the next leader's while this session lives.
 */
public final class ZkLeaderSelector extends Candidacy implements LeaderSelector {
  private static final Logger log = LoggerFactory.getLogger(ZkLeaderSelector.class);

  private final LeaderTask task;
  private volatile boolean autoRequeue;

  public ZkLeaderSelector(Session session, String path, String participantId, LeaderTask task) {
    super(session, path, checkParticipantId(participantId), QueueRules.LOCK_LAYOUT, "LeaderSelector");
    this.task = Objects.requireNonNull(task, "task");
  }

  @Override
  public LeaderSelector autoRequeue() {
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
    session.checkOpen();
    join();
    return true;
  }

  /** The task's thread closes the lease once the task returns; that deletes the node. */
  @Override
  boolean keepsNodeWhileLost() {
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
          // Granted while the connection was down and lost before it came back: never led.
          end(term);
          Lease lease = term.lease;
          return () -> {
            lease.close();
            join();
          };
        }
        // Granted while suspended: the task starts if the same session comes back.
      }
      case RELEASED -> {
        if (term.task != null) {
          // The task gave it up itself (closed its lease), or the client is closing.
          lose(term);
          if (session.isClosed()) {
            return revoke(term);
          }
        } else {
          end(term); // released before the task began: the client closed
        }
      }
    }
    return null;
  }

  private void startTask(Term term) {
    String id = participantId.length() > 40 ? participantId.substring(0, 40) + "..." : participantId;
    term.task = new Thread(() -> lead(term), "baton-leader-" + id + "-" + term.number);
    term.task.setDaemon(true);
    term.task.start();
  }

  /**
   * Takes leadership away from a running task; under the lock. Returns the interrupt of its
   * thread, to run once listeners have been told: a task that stops at once then gives up its
   * node only after they know.
   */
  private Runnable revoke(Term term) {
    lose(term);
    if (term.revoked) {
      return null;
    }
    term.revoked = true;
    Thread task = term.task;
    return task::interrupt;
  }

  private void lead(Term term) {
    Lease lease = term.lease;
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
      lease.close(); // RELEASED: listeners told, if they were not already
      boolean again;
      synchronized (this) {
        end(term);
        again = autoRequeue && phase == Phase.STARTED;
        leadershipChanged();
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
    boolean waiterStarted;
    Lease lease;
    Runnable interrupt = null;
    synchronized (this) {
      if (phase == Phase.CLOSED) {
        return;
      }
      phase = Phase.CLOSED;
      term = current;
      if (term == null) {
        return;
      }
      if (term.task != null) {
        interrupt = revoke(term); // the task's thread releases the node once the task returns
        term = null;
        waiterStarted = false;
        lease = null;
      } else {
        current = null;
        waiterStarted = term.waiterStarted;
        lease = term.lease;
      }
    }
    listeners.deliver();
    if (interrupt != null) {
      interrupt.run();
    }
    if (term != null) {
      withdraw(term, waiterStarted, lease);
    }
  }
}
