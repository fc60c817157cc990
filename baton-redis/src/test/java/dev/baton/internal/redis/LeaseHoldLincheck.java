package dev.baton.internal.redis;

import dev.baton.lock.LeaseState;
import dev.baton.testkit.ModelCheck;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.Validate;

/**
 * A lease's listeners and the order they hear its changes ({@link LeaseHold}, through the {@link
 * Tenure}s of its holders, which the listeners are added to), model-checked: listeners are added
 * and taken off (a tenure's end: removed, then told RELEASED) while the connection drops and the
 * hold is released, on several threads. Whatever the interleaving, a
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

  /** One listener, on a tenure of its own of the one hold: what it heard, and whether two threads told it at once. */
  private final class Heard {
    final Tenure tenure = new Tenure(hold, hold.token(), () -> {});
    final List<LeaseState> states = new ArrayList<>();
    boolean adding;
    boolean added; // set once the listener is on the hold, so that an end of tenure after it must tell it
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
      }
      states.add(state);
      telling = false;
    }
  }

  private final Hold hold = new Hold();
  private final Heard[] slots = {new Heard(), new Heard()};

  /** A holder adds a listener to its tenure's lease, as {@code Lease.addListener} does. */
  @Operation
  public void addListener(@Param(name = "slot") int slot) {
    Heard heard = slots[slot];
    synchronized (heard) {
      if (heard.adding) {
        return;
      }
      heard.adding = true;
    }
    heard.tenure.addListener(null, (lease, state) -> heard.stateChanged(state), Runnable::run);
    synchronized (heard) {
      heard.added = true;
    }
  }

  /** A tenure ends (see {@link Tenure#exit}): its listener is taken off, then told RELEASED as its last change. */
  @Operation
  public void endTenure(@Param(name = "slot") int slot) {
    Heard heard = slots[slot];
    synchronized (heard) {
      if (!heard.added || heard.ended) {
        return;
      }
      heard.ended = true;
    }
    heard.tenure.exit();
  }

  /** The connection drops: the hold is SUSPECT. */
  @Operation
  public void connectionLost() {
    hold.connectionLost();
  }

  /** The hold is released (as the client's close releases it under its holder): RELEASED for all its listeners. */
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
   * The budget. The races here take two threads: two changes announced at once (a dropped
   * connection against a release), and a tenure's end against a release (its listener told
   * RELEASED by both, which it must hear once). A written scenario lines up each with one thread
   * switch; 150 interleavings each found planted concurrent announcers (the announcing thread's
   * check taken out), which 150 on a three-thread scenario did not. Random scenarios only in a
   * long run (see {@link ModelCheck}).
   */
  public static void check() {
    ModelCheck.options(0, 150,
            ModelCheck.scenario(LeaseHoldLincheck.class, new String[] {"addListener 0", "connectionLost"}, new String[] {"release"}),
            ModelCheck.scenario(LeaseHoldLincheck.class, new String[] {"addListener 0", "endTenure 0"}, new String[] {"release"}))
        .check(LeaseHoldLincheck.class);
  }
}
