package dev.baton.internal.cache;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
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
   * The budget: 3 random scenarios of 3 threads x 2 operations, 50 interleavings each. The races
   * here take two or three operations on two threads (a delivery against an add or a removal, a pool thread's task against the next delivery); the model checker
   * tries interleavings with few thread switches first, and 50 cover every one-switch interleaving
   * of such a scenario and most two-switch ones.
   */
  public static void check() {
    new ModelCheckingOptions().iterations(3).invocationsPerIteration(50).threads(3).actorsPerThread(2)
        // Lincheck takes an invocation past this for a hang; the first ones instrument the classes they
        // reach, which took more than its default 30 s under heavy load (internal in Lincheck 3.7).
        .invocationTimeout$lincheck(180_000)
        .check(SerialListenersLincheck.class);
  }

}
