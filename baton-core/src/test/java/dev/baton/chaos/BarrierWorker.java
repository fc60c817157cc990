package dev.baton.chaos;

import dev.baton.barrier.DoubleBarrier;
import dev.baton.chaos.BarrierHistory.Kind;
import java.time.Duration;

/**
 * A member of the chaos run's double barrier: enters, holds a section (long ones let faults strike
 * a member inside), leaves, over and over. Every call and outcome goes to the {@link
 * BarrierHistory}; an entry counts as an operation for the run's progress check.
 */
final class BarrierWorker extends ChaosWorker {
  /** Long enough for a member whose link was cut past its session to be expired and counted out. */
  private static final Duration LEAVE_TIMEOUT = Duration.ofSeconds(10);

  private final DoubleBarrier barrier;
  private final BarrierHistory history;

  BarrierWorker(String name, ChaosRecipe recipe, long seed, double longHoldShare, ChaosClient client,
      DoubleBarrier barrier, BarrierHistory history) {
    super(name, recipe, seed, longHoldShare);
    this.barrier = barrier;
    this.history = history;
    history.member(name, client.sessions);
  }

  @Override
  boolean interruptedOnCrash() {
    return true; // a killed member stops where it is, inside or not
  }

  @Override
  void once() throws InterruptedException {
    history.add(name, Kind.ENTER_CALLED);
    long deadline = System.nanoTime() + ACQUIRE_TIMEOUT.toNanos();
    try {
      barrier.enter(ACQUIRE_TIMEOUT);
    } catch (RuntimeException e) {
      history.add(name, Kind.ENTER_FAILED);
      throw e;
    }
    history.add(name, System.nanoTime() - deadline >= 0 ? Kind.ENTERED_LATE : Kind.ENTERED);
    recipe.operations.increment();
    int hold = holdMicros();
    inLongSection(isLong(hold));
    pause(hold);
    inLongSection(false);
    history.add(name, Kind.LEAVE_CALLED);
    try {
      barrier.leave(LEAVE_TIMEOUT);
    } catch (RuntimeException e) {
      history.add(name, Kind.LEAVE_FAILED);
      throw e;
    }
    history.add(name, Kind.LEFT);
  }
}
