package dev.baton.internal.leadership;

import dev.baton.leader.LeadershipListener;
import dev.baton.lock.Lease;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listeners of one leadership recipe. Changes are recorded under the recipe's lock, in the
 * order they happen, and handed to the listeners' executors by {@link #deliver()} once that lock
 * is released: a listener on a direct executor then runs outside the recipe's lock (it may call
 * back into the recipe), yet every listener sees the changes in order. Reentrant: a listener that
 * closes its recipe delivers the resulting change from inside its own call.
 */
public final class LeadershipListeners {
  private static final Logger log = LoggerFactory.getLogger(LeadershipListeners.class);

  private record Subscription(LeadershipListener listener, Executor executor) {}

  private record Change(Lease lease, boolean gained) {}

  private final CopyOnWriteArrayList<Subscription> subscriptions = new CopyOnWriteArrayList<>();
  private final Queue<Change> pending = new ConcurrentLinkedQueue<>();

  public void add(LeadershipListener listener, Executor executor) {
    subscriptions.add(new Subscription(listener, executor));
  }

  public void remove(LeadershipListener listener) {
    subscriptions.removeIf(s -> s.listener() == listener);
  }

  /** Records a gain; called under the recipe's lock. */
  public void gained(Lease lease) {
    pending.add(new Change(lease, true));
  }

  /** Records a loss; called under the recipe's lock. */
  public void lost(Lease lease) {
    pending.add(new Change(lease, false));
  }

  /**
   * Hands the recorded changes to the listeners' executors, in order, and returns once every
   * change recorded before the call has been handed over (by this thread or another): a caller
   * about to give up the lock first tells of the loss, and only then lets the next leader in.
   * Listeners on a direct executor run here, so they must not block.
   */
  public synchronized void deliver() {
    Change change;
    while ((change = pending.poll()) != null) {
      Change c = change;
      for (Subscription s : subscriptions) {
        Runnable call = () -> {
          try {
            if (c.gained()) {
              s.listener().leadershipGained(c.lease());
            } else {
              s.listener().leadershipLost(c.lease());
            }
          } catch (RuntimeException e) {
            log.warn("A leadership listener of {} threw", c.lease().path(), e);
          }
        };
        try {
          s.executor().execute(call);
        } catch (RejectedExecutionException e) {
          log.debug("A leadership listener of {} was not told: its executor refused", c.lease().path(), e);
        }
      }
    }
  }
}
