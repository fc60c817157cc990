package dev.baton.internal.redis;

import dev.baton.lock.LeaseState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.Validate;

/**
 * A lease's listeners and the order they hear its changes ({@link LeaseHold}), model-checked:
 * listeners are added and taken off (a tenure's end: removed, then told RELEASED) while the
 * connection drops and the holder releases, on several threads. Whatever the interleaving, a
 * listener is told by one thread at a time, hears the changes in the order they happened (SUSPECT
 * before RELEASED, never twice), and nothing after RELEASED.
 */
@Param(name = "slot", gen = IntGen.class, conf = "0:1")
public class LeaseHoldLincheck {
  /** A grant whose release Redis answers at once, in memory. */
  private static final class Hold extends LeaseHold {
    Hold() {
      super(InMemoryClient.INSTANCE, "checked", 1, Duration.ofSeconds(60), true, System.nanoTime());
    }

    @Override
    protected CompletableFuture<Long> renewCommand(boolean extend) {
      return CompletableFuture.completedFuture(1L);
    }

    @Override
    protected CompletableFuture<?> releaseCommand() {
      return CompletableFuture.completedFuture(null);
    }
  }

  /** One listener: what it heard, and whether two threads told it at once. */
  private static final class Heard {
    final List<LeaseState> states = new ArrayList<>();
    Object registration;
    boolean added;
    boolean ended;
    private boolean telling;
    String violation;

    void stateChanged(LeaseState state) {
      if (telling) {
        violation = "told by two threads at once";
      }
      telling = true;
      if (!states.isEmpty() && states.get(states.size() - 1) == LeaseState.RELEASED) {
        violation = "heard " + state + " after RELEASED";
      } else if (states.contains(state)) {
        violation = "heard " + state + " twice";
      } else if (state == LeaseState.SUSPECT && states.contains(LeaseState.RELEASED)) {
        violation = "heard SUSPECT after RELEASED";
      }
      states.add(state);
      telling = false;
    }
  }

  private final Hold hold = new Hold();
  private final Heard[] slots = {new Heard(), new Heard()};

  @Operation
  public void addListener(@Param(name = "slot") int slot) {
    Heard heard = slots[slot];
    synchronized (heard) {
      if (heard.added) {
        return;
      }
      heard.added = true;
    }
    Object registration = hold.addListener(null, (lease, state) -> heard.stateChanged(state), Runnable::run);
    synchronized (heard) {
      heard.registration = registration;
    }
  }

  /** A tenure ends: its listener is taken off, then told RELEASED as its last change (see {@link Tenure#exit}). */
  @Operation
  public void endTenure(@Param(name = "slot") int slot) {
    Heard heard = slots[slot];
    Object registration;
    synchronized (heard) {
      registration = heard.registration;
      if (registration == null || heard.ended) {
        return;
      }
      heard.ended = true;
    }
    hold.removeListener(registration);
    hold.tellReleased(registration);
  }

  @Operation
  public void connectionLost() {
    hold.connectionLost();
  }

  @Operation
  public void release() {
    hold.release();
  }

  @Validate
  public void everyListenerHeardTheChangesInOrder() {
    for (Heard heard : slots) {
      if (heard.violation != null) {
        throw new IllegalStateException(heard.violation + ": " + heard.states);
      }
      if (heard.ended && !heard.states.contains(LeaseState.RELEASED)) {
        throw new IllegalStateException("a listener taken off was not told RELEASED: " + heard.states);
      }
    }
  }

  /**
   * The budget: 3 random scenarios of 3 threads x 2 operations, 50 interleavings each. The races
   * here take two or three operations on two threads (an add or a tenure's end against a release or a dropped connection; the double RELEASED took add, release, end of tenure, and this budget finds it again with the fix taken out); the model checker
   * tries interleavings with few thread switches first, and 50 cover every one-switch interleaving
   * of such a scenario and most two-switch ones.
   */
  public static void check() {
    new ModelCheckingOptions().iterations(3).invocationsPerIteration(50).threads(3).actorsPerThread(2)
        // Lincheck takes an invocation past this for a hang; the first ones instrument the classes they
        // reach, which took more than its default 30 s under heavy load (internal in Lincheck 3.7).
        .invocationTimeout$lincheck(180_000)
        .check(LeaseHoldLincheck.class);
  }
}
