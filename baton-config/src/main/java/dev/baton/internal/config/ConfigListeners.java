package dev.baton.internal.config;

import dev.baton.config.ConfigListener;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listeners of one config center. Each has a queue of its own in front of its executor, so
 * that it hears the changes one at a time and in the order they were made even when the executor
 * is a pool; handing changes over never blocks, so it may be done under the copy's lock, on
 * ZooKeeper's event thread.
 */
final class ConfigListeners {
  private static final Logger log = LoggerFactory.getLogger(ConfigListeners.class);

  private final CopyOnWriteArrayList<Subscription> subscriptions = new CopyOnWriteArrayList<>();

  void add(ConfigListener listener, Executor executor) {
    subscriptions.add(new Subscription(listener, executor));
  }

  void remove(ConfigListener listener) {
    subscriptions.removeIf(s -> s.listener == listener);
  }

  void clear() {
    subscriptions.clear();
  }

  /** Hands {@code changes} to every listener's queue, in order. */
  void deliver(List<ConfigTree.Change> changes) {
    for (Subscription subscription : subscriptions) {
      subscription.enqueue(changes);
    }
  }

  /** One listener and its queue of changes not yet told. */
  private static final class Subscription {
    final ConfigListener listener;
    final Executor executor;
    // Guarded by this.
    private final Queue<ConfigTree.Change> queue = new ArrayDeque<>();
    private boolean running;

    Subscription(ConfigListener listener, Executor executor) {
      this.listener = listener;
      this.executor = executor;
    }

    void enqueue(List<ConfigTree.Change> changes) {
      synchronized (this) {
        queue.addAll(changes);
        if (running) {
          return;
        }
        running = true;
      }
      try {
        executor.execute(this::drain);
      } catch (RejectedExecutionException e) {
        log.debug("Config listener not run: its executor is shut down");
        synchronized (this) {
          queue.clear();
          running = false;
        }
      }
    }

    /** Tells the queued changes one by one; one drain runs at a time. */
    private void drain() {
      while (true) {
        ConfigTree.Change change;
        synchronized (this) {
          change = queue.poll();
          if (change == null) {
            running = false;
            return;
          }
        }
        try {
          listener.changed(change.key(), change.oldValue(), change.newValue());
        } catch (RuntimeException e) {
          log.error("A config listener threw on the change of {}", change.key(), e);
        }
      }
    }
  }
}
