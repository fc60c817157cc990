package dev.baton.internal.cache;

import dev.baton.testkit.ModelCheck;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.Validate;

/**
 * The cache's listener set, model-checked: listeners added and removed while the sync delivers
 * (one delivery at a time, as under the copy's lock) and while a pool's threads run the listeners'
 * queues. Whatever the interleaving, a listener is told by one thread at a time, and hears a run of
 * the delivered events without gaps, in their order, after its first events; one still added hears
 * every event delivered since it was.
 */
@Param(name = "slot", gen = IntGen.class, conf = "0:1")
public class SerialListenersLincheck {
  /** The pool the listeners run on: its tasks are run by whichever thread calls {@link #runTask}. */
  private final ConcurrentLinkedQueue<Runnable> pool = new ConcurrentLinkedQueue<>();
  private final Executor executor = pool::add;
  private final SerialListeners<Heard, Integer> listeners = new SerialListeners<>(Heard::tell);
  private final Heard[] slots = {new Heard(), new Heard()};
  private final List<Integer> delivered = new ArrayList<>(); // by the one delivering thread
  private int next;

  /** What one listener heard; slot 1's listener is added with a first event of its own, -1. */
  static final class Heard {
    final List<Integer> events = new ArrayList<>();
    boolean added;
    boolean removed;
    private boolean telling;

    void tell(Integer event) {
      if (telling) {
        throw new IllegalStateException("two threads tell one listener at once");
      }
      telling = true;
      events.add(event);
      telling = false;
    }
  }

  @Operation
  public void add(@Param(name = "slot") int slot) {
    Heard heard = slots[slot];
    synchronized (heard) {
      if (heard.added) {
        return;
      }
      heard.added = true;
    }
    if (slot == 0) {
      listeners.add(heard, executor);
    } else {
      listeners.add(heard, executor, List.of(-1));
    }
  }

  @Operation
  public void remove(@Param(name = "slot") int slot) {
    Heard heard = slots[slot];
    synchronized (heard) {
      if (!heard.added || heard.removed) {
        return;
      }
      heard.removed = true;
    }
    listeners.remove(heard);
  }

  /** The sync's changes: one thread at a time, as the cache delivers under its lock. */
  @Operation(nonParallelGroup = "sync")
  public void deliver() {
    int event = next++;
    delivered.add(event);
    listeners.deliver(List.of(event));
  }

  /** A worker of the listeners' pool runs one queued task. */
  @Operation
  public void runTask() {
    Runnable task = pool.poll();
    if (task != null) {
      task.run();
    }
  }

  @Validate
  public void everyListenerHeardARunOfTheEvents() {
    Runnable task;
    while ((task = pool.poll()) != null) {
      task.run();
    }
    for (int slot = 0; slot < slots.length; slot++) {
      Heard heard = slots[slot];
      List<Integer> events = new ArrayList<>(heard.events);
      if (slot == 1 && heard.added) {
        if (events.isEmpty() || events.get(0) != -1) {
          throw new IllegalStateException("slot 1 did not hear its first event first: " + events);
        }
        events.remove(0);
      }
      if (events.isEmpty()) {
        continue; // added after the last delivery, or never
      }
      int from = delivered.indexOf(events.get(0));
      if (from < 0 || from + events.size() > delivered.size()
          || !delivered.subList(from, from + events.size()).equals(events)) {
        throw new IllegalStateException("slot " + slot + " heard " + events + " of " + delivered);
      }
      if (!heard.removed && from + events.size() != delivered.size()) {
        throw new IllegalStateException("slot " + slot + " missed the last events: heard " + events + " of " + delivered);
      }
    }
  }

  /**
   * The budget. The races here take two or three threads: the pool's threads running one
   * listener's queue while the next delivery queues, and an add (with first events) or a removal
   * against a delivery. The written scenarios line these up with one or two thread switches; 150
   * interleavings each found a planted queue run by two pool threads at once (50 did not).
   * Random scenarios only in a long run (see {@link ModelCheck}).
   */
  public static void check() {
    ModelCheck.options(0, 150,
            // two deliveries queue while two pool threads run the listener's queue
            ModelCheck.scenario(SerialListenersLincheck.class,
                new String[] {"add 0", "deliver", "deliver"}, new String[] {"runTask"}, new String[] {"runTask"}),
            // an add with first events and a removal against a delivery and its task
            ModelCheck.scenario(SerialListenersLincheck.class,
                new String[] {"add 1", "remove 1"}, new String[] {"deliver", "runTask"}, new String[] {"add 0", "runTask"}))
        .check(SerialListenersLincheck.class);
  }
}
