package dev.baton.internal.cache;

import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listeners of one cache. Each has a queue of its own in front of its executor, so that it
 * hears the events one at a time and in the order they happened even when the executor is a
 * pool; handing events over never blocks, so it may be done under the copy's lock, on
 * ZooKeeper's event thread. A listener that throws is logged and keeps its place.
 *
 * @param <L> the listener type
 * @param <E> what it is told
 */
public final class SerialListeners<L, E> {
  private static final Logger log = LoggerFactory.getLogger(SerialListeners.class);

  private final CopyOnWriteArrayList<Subscription<L, E>> subscriptions = new CopyOnWriteArrayList<>();
  private final BiConsumer<L, E> tell;

  /** @param tell how a listener is told of one event */
  public SerialListeners(BiConsumer<L, E> tell) {
    this.tell = tell;
  }

  public void add(L listener, Executor executor) {
    subscriptions.add(new Subscription<>(listener, executor, tell));
  }

  /** Adds {@code listener} with {@code first} as its first events, before any later {@link #deliver}. */
  public void add(L listener, Executor executor, List<E> first) {
    Subscription<L, E> subscription = new Subscription<>(listener, executor, tell);
    subscription.enqueue(first);
    subscriptions.add(subscription);
  }

  public void remove(L listener) {
    subscriptions.removeIf(s -> s.listener == listener);
  }

  /** Removes every listener {@code which} accepts. */
  public void removeIf(java.util.function.Predicate<L> which) {
    subscriptions.removeIf(s -> which.test(s.listener));
  }

  public void clear() {
    subscriptions.clear();
  }

  public boolean isEmpty() {
    return subscriptions.isEmpty();
  }

  /** Hands {@code events} to every listener's queue, in order. */
  public void deliver(List<E> events) {
    if (events.isEmpty()) {
      return;
    }
    for (Subscription<L, E> subscription : subscriptions) {
      subscription.enqueue(events);
    }
  }

  /** One listener and its queue of events not yet told. */
  private static final class Subscription<L, E> {
    final L listener;
    final Executor executor;
    final BiConsumer<L, E> tell;
    // Guarded by this.
    private final Queue<E> queue = new ArrayDeque<>();
    private boolean running;

    Subscription(L listener, Executor executor, BiConsumer<L, E> tell) {
      this.listener = listener;
      this.executor = executor;
      this.tell = tell;
    }

    void enqueue(List<E> events) {
      if (events.isEmpty()) {
        return;
      }
      synchronized (this) {
        queue.addAll(events);
        if (running) {
          return;
        }
        running = true;
      }
      try {
        executor.execute(this::drain);
      } catch (RejectedExecutionException e) {
        log.debug("Listener not run: its executor is shut down");
        synchronized (this) {
          queue.clear();
          running = false;
        }
      }
    }

    /** Tells the queued events one by one; one drain runs at a time. */
    private void drain() {
      while (true) {
        E event;
        synchronized (this) {
          event = queue.poll();
          if (event == null) {
            running = false;
            return;
          }
        }
        try {
          tell.accept(listener, event);
        } catch (RuntimeException e) {
          log.error("A listener threw on {}", event, e);
        }
      }
    }
  }
}
