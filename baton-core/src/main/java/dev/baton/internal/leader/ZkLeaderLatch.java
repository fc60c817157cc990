package dev.baton.internal.leader;

import dev.baton.BatonInterruptedException;
import dev.baton.internal.engine.QueueWaiter;
import dev.baton.internal.session.Durations;
import dev.baton.internal.session.Session;
import dev.baton.leader.LeaderLatch;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The leader latch: a {@link Candidacy} that leads while its lease is held, and joins the queue
 * again whenever a term ends while the latch is started (leadership lost with the session, or
 * stepped down from by closing the lease). Wire-compatible with Curator's {@code LeaderLatch}:
 * nodes {@code _c_<uuid>-latch-<seq>} holding the participant id.
 */
public final class ZkLeaderLatch extends Candidacy implements LeaderLatch {
  static final QueueWaiter.QueueLayout LAYOUT = QueueWaiter.QueueLayout.of("latch-");

  public ZkLeaderLatch(Session session, String path, String participantId) {
    super(session, path, checkParticipantId(participantId), LAYOUT, "LeaderLatch");
  }

  @Override
  public void start() {
    startOnce();
  }

  @Override
  Runnable leaseChanged(Term term, LeaseState state) {
    switch (state) {
      case HELD -> gain(term);
      case SUSPECT -> lose(term);
      case LOST, RELEASED -> {
        lose(term);
        end(term);
        // A new term on the client's (new) session; after a presumed loss that is still the old
        // one, whose node the held lock deletes if the session comes back after all.
        return this::join;
      }
    }
    return null;
  }

  @Override
  public boolean await(Duration timeout) {
    Durations.checkedTimeout(timeout);
    long limit = Durations.timeoutNanos(timeout);
    long deadline = System.nanoTime() + limit;
    while (true) {
      CompletableFuture<Void> change;
      synchronized (this) {
        if (phase == Phase.LATENT) {
          throw new IllegalStateException(this + " is not started; call start() before await()");
        }
        if (phase != Phase.STARTED || hasLeadership()) {
          return phase == Phase.STARTED;
        }
        throwIfFailed();
        change = nextChange(); // read with the state: a change after this read completes it
      }
      long left = limit < 0 ? Long.MAX_VALUE : deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      try {
        change.get(left, TimeUnit.NANOSECONDS); // outside the monitor: see signalChange()
      } catch (TimeoutException e) {
        // the loop reads the state once more, and returns false if it still does not lead
      } catch (ExecutionException e) {
        throw new IllegalStateException("a change of leadership never fails", e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new BatonInterruptedException("Interrupted while waiting for leadership of " + path, e);
      }
    }
  }

  @Override
  public synchronized Optional<Lease> leadership() {
    Term term = current;
    if (term == null || term.lease == null) {
      return Optional.empty();
    }
    LeaseState state = term.lease.state();
    return state == LeaseState.HELD || state == LeaseState.SUSPECT ? Optional.of(term.lease) : Optional.empty();
  }

  @Override
  public void close() {
    Term term;
    boolean waiterStarted;
    Lease lease;
    synchronized (this) {
      if (phase == Phase.CLOSED) {
        return;
      }
      phase = Phase.CLOSED;
      signalChange(); // waiters in await() return false
      term = current;
      if (term == null) {
        return;
      }
      waiterStarted = term.waiterStarted;
      lease = term.lease;
      if (lease == null) {
        current = null;
      }
      // A held term stays current until its lease is closed: the release then tells listeners
      // of the loss (RELEASED) before the node is deleted, as when the lease itself is closed.
    }
    withdraw(term, waiterStarted, lease);
  }
}
