package dev.baton.internal.leadership;

import dev.baton.lock.Lease;
import dev.baton.lock.LeaseListener;
import dev.baton.lock.LeaseState;
import dev.baton.leader.LeadershipListener;
import dev.baton.testkit.ModelCheck;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.Validate;

/**
 * A leadership recipe's listeners ({@link LeadershipListeners}), model-checked: listeners added and
 * removed while threads record gains and losses under the recipe's lock and deliver them after it.
 * Whatever the interleaving, a listener is told by one thread at a time, hears the changes in the
 * order they were recorded without gaps, and has heard a change by the time the thread that
 * recorded it returns from {@link LeadershipListeners#deliver()} (if it was added before).
 */
@Param(name = "slot", gen = IntGen.class, conf = "0:1")
public class LeadershipListenersLincheck {
  private final Object recipeLock = new Object();
  private final LeadershipListeners listeners = new LeadershipListeners();
  private final Heard[] slots = {new Heard(), new Heard()};
  private int recorded; // guarded by recipeLock

  /** A change's lease: its place in the order the changes were recorded. */
  private record Change(int index) implements Lease {
    @Override
    public String path() {
      return "/checked";
    }

    @Override
    public long fencingToken() {
      return index;
    }

    @Override
    public LeaseState state() {
      return LeaseState.HELD;
    }

    @Override
    public boolean isValid() {
      return true;
    }

    @Override
    public Instant validUntil() {
      return Instant.MAX;
    }

    @Override
    public void addListener(LeaseListener listener) {
    }

    @Override
    public void addListener(LeaseListener listener, Executor executor) {
    }

    @Override
    public void close() {
    }
  }

  /** One listener: the changes it heard, and from which change on it must hear them all. */
  private static final class Heard implements LeadershipListener {
    final List<Integer> changes = new ArrayList<>();
    boolean added;
    boolean removed;
    int mustHearFrom = -1; // guarded by recipeLock
    private boolean telling;
    String violation;

    @Override
    public void leadershipGained(Lease lease) {
      heard(((Change) lease).index(), true);
    }

    @Override
    public void leadershipLost(Lease lease) {
      heard(((Change) lease).index(), false);
    }

    private void heard(int index, boolean gained) {
      if (telling) {
        violation = "told by two threads at once";
      }
      telling = true;
      if (gained != (index % 2 == 0)) {
        violation = "change " + index + " told as the wrong kind";
      }
      if (!changes.isEmpty() && changes.get(changes.size() - 1) + 1 != index) {
        violation = "heard " + index + " after " + changes.get(changes.size() - 1);
      }
      changes.add(index);
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
    listeners.add(heard, Runnable::run);
    synchronized (recipeLock) {
      heard.mustHearFrom = recorded;
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

  /** The recipe gains or loses (alternately) under its lock, and delivers once it has left it. */
  @Operation
  public void change() {
    int index;
    List<Heard> mustHaveHeard = new ArrayList<>();
    synchronized (recipeLock) {
      index = recorded++;
      Change change = new Change(index);
      if (index % 2 == 0) {
        listeners.gained(change);
      } else {
        listeners.lost(change);
      }
      for (Heard heard : slots) {
        if (heard.mustHearFrom >= 0 && heard.mustHearFrom <= index) {
          mustHaveHeard.add(heard);
        }
      }
    }
    listeners.deliver();
    for (Heard heard : mustHaveHeard) {
      synchronized (heard) {
        if (!heard.removed && !heard.changes.contains(index)) {
          heard.violation = "change " + index + " not heard when its deliver returned";
        }
      }
    }
  }

  @Validate
  public void everyListenerHeardTheChangesInOrder() {
    for (Heard heard : slots) {
      if (heard.violation != null) {
        throw new IllegalStateException(heard.violation + ": " + heard.changes);
      }
    }
  }

  /**
   * The budget. The races here take two or three threads: two deliveries against each other, and a
   * change recorded against an add or a removal. The written scenarios line these up with one or
   * two thread switches; 60 interleavings each are more than the model checker took to find
   * planted unserialized deliveries (found within 50). Random scenarios only in a long run (see
   * {@link ModelCheck}).
   */
  public static void check() {
    ModelCheck.options(0, 60,
            // two changes delivered at once to a listener
            ModelCheck.scenario(LeadershipListenersLincheck.class, new String[] {"add 0", "change"}, new String[] {"change"}),
            // an add and a removal against changes
            ModelCheck.scenario(LeadershipListenersLincheck.class,
                new String[] {"add 0", "remove 0"}, new String[] {"change", "change"}, new String[] {"add 1", "change"}))
        .check(LeadershipListenersLincheck.class);
  }

}
