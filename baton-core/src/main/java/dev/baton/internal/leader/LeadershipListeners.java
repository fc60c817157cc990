package dev.baton.internal.leader;

import dev.baton.internal.session.Session;
import dev.baton.leader.LeadershipListener;
import dev.baton.lock.Lease;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;

/**
 * The listeners of one leadership recipe. Changes are recorded under the recipe's lock, in the
 * order they happen, and handed to the listeners' executors by {@link #deliver()} once the lock
 * is released: a listener on a direct executor then runs outside the recipe's lock (it may call
 * back into the recipe), yet every listener sees the changes in order. (Reentrant: a listener
 * that closes its recipe delivers the resulting change from inside its own call.)
 */
final class LeadershipListeners {
  private record Subscription(LeadershipListener listener, Executor executor) {}

  private record Change(Lease lease, boolean gained) {}

  private final CopyOnWriteArrayList<Subscription> subscriptions = new CopyOnWriteArrayList<>();
  private final Queue<Change> pending = new ConcurrentLinkedQueue<>();

  void add(LeadershipListener listener, Executor executor) {
    subscriptions.add(new Subscription(listener, executor));
  }

  void remove(LeadershipListener listener) {
    subscriptions.removeIf(s -> s.listener() == listener);
  }

  /** Records a gain; called under the recipe's lock. */
  void gained(Lease lease) {
    pending.add(new Change(lease, true));
  }

  /** Records a loss; called under the recipe's lock. */
  void lost(Lease lease) {
    pending.add(new Change(lease, false));
  }

  /**
   * Hands the recorded changes to the listeners' executors, in order, and returns once every
   * change recorded before the call has been handed over (by this thread or another): a caller
   * about to give up a node first tells of the loss, and only then lets the next leader in.
   * Listeners on a direct executor run here, so they must not block.
   */
  synchronized void deliver() {
    Change change;
    while ((change = pending.poll()) != null) {
      Change c = change;
      for (Subscription s : subscriptions) {
        Session.executeQuietly(s.executor(), () -> {
          if (c.gained()) {
            s.listener().leadershipGained(c.lease());
          } else {
            s.listener().leadershipLost(c.lease());
          }
        });
      }
    }
  }
}
