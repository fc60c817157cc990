package dev.baton.internal.jdbc;

import dev.baton.BatonInterruptedException;
import dev.baton.ClientClosedException;
import dev.baton.FailureListener;
import dev.baton.leader.LeaderLatch;
import dev.baton.leader.LeadershipListener;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A leader latch on the lock row of its name: the participant whose waiter is granted the row
 * leads, its lease is the leadership, and its token the leader's fencing token. The participant id
 * is written in the row's {@code thread} column, so {@link #leaderId()} reads it from there.
 * Leadership is not trusted while the lease is SUSPECT (listeners hear "lost", then "gained" again
 * with the same lease if a renewal succeeds); once LOST or released the latch queues again.
 */
public final class JdbcLeaderLatch implements LeaderLatch {
  private static final Logger log = LoggerFactory.getLogger(JdbcLeaderLatch.class);

  private final JdbcSession session;
  private final JdbcMutex mutex;
  private final String participantId;
  private final List<Registered> listeners = new CopyOnWriteArrayList<>();
  private final List<FailureListener> failureListeners = new CopyOnWriteArrayList<>();
  private boolean started; // guarded by this
  private boolean closed; // guarded by this
  private Lease leadership; // guarded by this
  private boolean toldGained; // guarded by this
  private CompletableFuture<Lease> joining; // guarded by this
  private RuntimeException failure; // guarded by this

  private record Registered(LeadershipListener listener, Executor executor) {}

  public JdbcLeaderLatch(JdbcSession session, String name, String participantId) {
    this.session = session;
    this.mutex = new JdbcMutex(session, name);
    this.participantId = Objects.requireNonNull(participantId, "participantId");
  }

  @Override
  public String path() {
    return mutex.path();
  }

  @Override
  public String participantId() {
    return participantId;
  }

  @Override
  public void start() {
    session.checkOpen();
    synchronized (this) {
      if (started || closed) {
        throw new IllegalStateException("The leader latch " + participantId + " on " + path() + " was already "
            + (closed ? "closed" : "started"));
      }
      started = true;
    }
    join();
  }

  private void join() {
    CompletableFuture<Lease> f;
    synchronized (this) {
      if (closed) {
        return;
      }
      try {
        f = mutex.acquireAsync(participantId);
      } catch (ClientClosedException e) {
        fail(e);
        return;
      }
      joining = f;
    }
    f.whenComplete((lease, error) -> {
      if (error != null) {
        if (error instanceof ClientClosedException c) {
          fail(c);
        } else if (!(error instanceof java.util.concurrent.CancellationException)) {
          log.debug("Joining the election {} failed; trying again", path(), error);
          join();
        }
        return;
      }
      lease.addListener(this::leaseChanged, Runnable::run);
      boolean keep;
      synchronized (this) {
        keep = !closed;
        if (keep) {
          leadership = lease;
          notifyAll();
        }
      }
      if (!keep) {
        lease.close();
        return;
      }
      gained(lease);
    });
  }

  private void gained(Lease lease) {
    synchronized (this) {
      if (leadership != lease || toldGained || lease.state() != LeaseState.HELD) {
        return;
      }
      toldGained = true;
    }
    tell(lease, true);
  }

  private void lost(Lease lease) {
    synchronized (this) {
      if (!toldGained) {
        return;
      }
      toldGained = false;
    }
    tell(lease, false);
  }

  private void leaseChanged(Lease lease, LeaseState state) {
    switch (state) {
      case HELD -> {
        synchronized (this) {
          notifyAll();
        }
        gained(lease);
      }
      case SUSPECT -> lost(lease);
      case LOST, RELEASED -> {
        lost(lease);
        boolean rejoin;
        synchronized (this) {
          if (leadership == lease) {
            leadership = null;
          }
          rejoin = !closed;
          notifyAll();
        }
        if (rejoin) {
          join(); // at the back
        }
      }
    }
  }

  private void tell(Lease lease, boolean gained) {
    for (Registered r : listeners) {
      try {
        r.executor().execute(() -> {
          try {
            if (gained) {
              r.listener().leadershipGained(lease);
            } else {
              r.listener().leadershipLost(lease);
            }
          } catch (RuntimeException e) {
            log.warn("A leadership listener of {} threw", path(), e);
          }
        });
      } catch (RejectedExecutionException e) {
        log.debug("A leadership listener of {} was not told: its executor is shut down", path());
      }
    }
  }

  private void fail(RuntimeException e) {
    synchronized (this) {
      if (failure != null) {
        return;
      }
      failure = e;
      notifyAll();
    }
    for (FailureListener l : failureListeners) {
      l.failed(e);
    }
  }

  @Override
  public synchronized boolean hasLeadership() {
    return leadership != null && leadership.state() == LeaseState.HELD;
  }

  @Override
  public boolean await(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative()) {
      throw new IllegalArgumentException("The timeout must not be negative: " + timeout);
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (this) {
      if (!started) {
        throw new IllegalStateException("The leader latch " + participantId + " on " + path() + " was never started");
      }
      while (true) {
        if (failure != null) {
          throw new IllegalStateException("The leader latch " + participantId + " stopped: " + failure.getMessage(),
              failure);
        }
        if (hasLeadership()) {
          return true;
        }
        long left = deadline - System.nanoTime();
        if (closed || left <= 0) {
          return false;
        }
        try {
          // Bounded so that a lease turning HELD again without a notice is seen within a renewal period.
          long millis = Math.max(1, Math.min(left / 1_000_000, session.settings().renewEvery().toMillis()));
          wait(millis);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new BatonInterruptedException("Interrupted while waiting to lead " + path(), e);
        }
      }
    }
  }

  @Override
  public synchronized Optional<Lease> leadership() {
    if (leadership == null) {
      return Optional.empty();
    }
    LeaseState s = leadership.state();
    return s == LeaseState.HELD || s == LeaseState.SUSPECT ? Optional.of(leadership) : Optional.empty();
  }

  @Override
  public void addListener(LeadershipListener listener) {
    addListener(listener, session.notices());
  }

  @Override
  public void addListener(LeadershipListener listener, Executor executor) {
    listeners.add(new Registered(Objects.requireNonNull(listener, "listener"), Objects.requireNonNull(executor)));
  }

  @Override
  public void removeListener(LeadershipListener listener) {
    listeners.removeIf(r -> r.listener() == listener);
  }

  @Override
  public synchronized Optional<RuntimeException> failure() {
    return Optional.ofNullable(failure);
  }

  @Override
  public void addFailureListener(FailureListener listener) {
    RuntimeException now;
    synchronized (this) {
      now = failure;
      if (now == null) {
        failureListeners.add(listener);
        return;
      }
    }
    listener.failed(now);
  }

  /** The participant id in the live row of the election, read from the database. */
  @Override
  public Optional<String> leaderId() {
    try {
      return session.run(c -> session.dialect().read(c, path())).filter(Dialect.Row::live).map(Dialect.Row::thread);
    } catch (SQLException e) {
      throw session.error("reading the leader of " + path(), e);
    }
  }

  /**
   * The leader, then this client's participants waiting on the name: the database keeps no queue,
   * so those of other clients are not listed.
   */
  @Override
  public List<String> participants() {
    List<String> out = new ArrayList<>();
    leaderId().ifPresent(out::add);
    for (LockQueue.Waiter w : Optional.ofNullable(session.existingQueue(path())).map(LockQueue::snapshot)
        .orElse(List.of())) {
      if (!out.contains(w.thread)) {
        out.add(w.thread);
      }
    }
    return out;
  }

  @Override
  public void close() {
    Lease lease;
    CompletableFuture<Lease> pending;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      lease = leadership;
      leadership = null;
      pending = joining;
      notifyAll();
    }
    if (pending != null) {
      pending.cancel(false);
    }
    if (lease != null) {
      lost(lease); // before the row is freed, so before the next leader can be told
      lease.close();
    }
  }

  @Override
  public String toString() {
    return "JdbcLeaderLatch[" + participantId + " on " + path() + "]";
  }
}
