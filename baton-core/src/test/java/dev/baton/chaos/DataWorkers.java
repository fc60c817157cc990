package dev.baton.chaos;

import dev.baton.BatonInterruptedException;
import dev.baton.ConnectionException;
import dev.baton.OutcomeUnknownException;
import dev.baton.atomic.Counter;
import dev.baton.queue.DistributedQueue;
import dev.baton.queue.QueueItem;
import java.util.Optional;
import java.util.function.LongSupplier;

/** Chaos workers of the recipes that hold data: the queue and the counter. */
final class DataWorkers {
  private DataWorkers() {}

  /**
   * Puts unique values and takes them, alternately at random; a taken item is held for a section
   * (long ones let link faults strike mid-item), then acknowledged. Every outcome goes to the
   * {@link QueueHistory}.
   */
  static final class QueueWorker extends ChaosWorker {
    private final DistributedQueue<String> queue;
    private final QueueHistory history;
    private final LongSupplier sessionId;
    private final SessionTrail sessions;
    private int puts;

    QueueWorker(String name, ChaosRecipe recipe, long seed, double longHoldShare, ChaosClient client,
        DistributedQueue<String> queue, QueueHistory history) {
      super(name, recipe, seed, longHoldShare);
      this.queue = queue;
      this.history = history;
      this.sessionId = client.baton::sessionId;
      this.sessions = client.sessions;
    }

    @Override
    boolean interruptedOnCrash() {
      return true;
    }

    @Override
    void once() throws InterruptedException {
      if (random.nextBoolean()) {
        put();
      } else {
        take();
      }
    }

    private void put() {
      String value = name + "-" + (++puts);
      try {
        queue.put(value);
      } catch (OutcomeUnknownException | BatonInterruptedException e) {
        history.putUnknown(value); // interrupted when its client was killed: maybe applied, too
        throw e;
      }
      history.putConfirmed(value);
      recipe.operations.increment();
    }

    /** A take that ended without an item: its claim, if it made one, lives as long as the session it was made on, at most. */
    private void takeWithoutItem(long started, long sessionAtStart) {
      long sessionAtEnd = sessionId.getAsLong();
      history.takeFailed(started, () -> Math.max(sessions.goneBy(sessionAtStart),
          sessionAtEnd == 0 ? Long.MIN_VALUE : sessions.goneBy(sessionAtEnd)));
    }

    private void take() throws InterruptedException {
      long started = System.nanoTime();
      long sessionAtStart = sessionId.getAsLong();
      Optional<QueueItem<String>> taken;
      try {
        taken = queue.take(ACQUIRE_TIMEOUT);
      } catch (RuntimeException e) {
        takeWithoutItem(started, sessionAtStart);
        throw e;
      }
      if (taken.isEmpty()) {
        // Nothing queued meanwhile, or a claim was still on its way when the time was up: the
        // queue gives such a claim back once its reply comes, and until then the item is claimed
        // by nobody the history can see.
        takeWithoutItem(started, sessionAtStart);
        return;
      }
      try (QueueItem<String> item = taken.get()) {
        QueueHistory.Delivery delivery = history.delivered(item.value(), name, started);
        int hold = holdMicros();
        inLongSection(isLong(hold));
        pause(hold);
        inLongSection(false);
        delivery.ackStarted();
        try {
          item.ack();
        } catch (OutcomeUnknownException | BatonInterruptedException e) {
          delivery.ended(QueueHistory.AckOutcome.UNKNOWN); // interrupted: maybe applied, too
          throw e;
        } catch (RuntimeException e) {
          delivery.ended(QueueHistory.AckOutcome.FAILED);
          throw e;
        }
        delivery.ended(QueueHistory.AckOutcome.ACKED);
        recipe.operations.increment();
      }
    }
  }

  /** Increments the counter by one, over and over; every reply goes to the {@link CounterHistory}. */
  static final class CounterWorker extends ChaosWorker {
    private final Counter counter;
    private final CounterHistory history;

    CounterWorker(String name, ChaosRecipe recipe, long seed, Counter counter, CounterHistory history) {
      super(name, recipe, seed, 0);
      this.counter = counter;
      this.history = history;
    }

    @Override
    boolean interruptedOnCrash() {
      return true;
    }

    @Override
    void once() {
      long value;
      try {
        value = counter.incrementAndGet();
      } catch (OutcomeUnknownException | BatonInterruptedException e) {
        history.unknown.increment();
        throw e;
      } catch (ConnectionException e) {
        history.notApplied.increment();
        throw e;
      }
      history.done(name, value);
      recipe.operations.increment();
    }
  }
}
