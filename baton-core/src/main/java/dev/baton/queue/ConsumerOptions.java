package dev.baton.queue;

import dev.baton.ZkPaths;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;

/**
 * How a {@link DistributedQueue#consume consumer} runs its handler and treats items whose handler
 * keeps failing (poison items). Immutable; each {@code with...} returns a copy.
 *
 * <p>Redelivery with back-off: an item whose handler throws is given back at once, and the number
 * of failed deliveries kept with the item ({@link QueueItem#attempt()}) grows by one in the same
 * transaction. The failure may be this client's own (a resource only it cannot reach), so the item
 * goes to the consumers of other clients first: every consumer and take of this client (of any
 * {@code DistributedQueue} object on the path) leaves it alone for a back-off ({@link
 * #firstBackOff()} after the first failure, doubling each time up to {@link #maxBackOff()}), and
 * takes it again afterwards only if no other consumer has claimed it meanwhile. The consumer goes
 * on with other items. The back-off is kept in the client's memory: a client that restarts may
 * take the item at once.
 *
 * <p>Dead letters: when the delivery numbered {@link #maxAttempts()} fails too, the item moves to
 * the dead-letter path ({@code <queue path>/dead} unless {@link #withDeadLetterPath set}) in one
 * transaction with its removal from the queue, checked against this consumer's claim: it is in
 * exactly one of the two. The dead-letter path is a queue of its own, in the same item format:
 * {@code baton.queue(path + "/dead", codec)} takes them back. A {@link #withDeadLetterHandler
 * handler} can take them instead.
 *
 * <p>The count is kept by the item's node (its data version), so every Baton consumer of the
 * queue counts together, across clients and restarts: with two consumers whose handlers both fail
 * on an item, it is a dead letter after {@code maxAttempts} failures in all, whichever consumer had
 * them, decided by the consumer whose failure was the last allowed (its own {@code maxAttempts},
 * when consumers differ). A delivery that ends because its consumer died is not counted.
 *
 * <p>Connection loss and session expiry: an item is given back in the background, retried across
 * connection loss; if the claim's session expires first, the claim is gone with it, the item is
 * free and this delivery is not counted. Moving a dead letter blocks the consumer's thread as
 * {@link QueueItem#ack()} does; if it fails for a reason retrying may cure (the retry policy gave
 * up, say), the item is given back, counted, and this client leaves it alone for {@link
 * #maxBackOff()}. No timeout of its own.
 */
public final class ConsumerOptions {
  private static final ConsumerOptions DEFAULTS =
      new ConsumerOptions(null, Duration.ofSeconds(1), Duration.ofSeconds(30), 10, null, null);

  private final Executor executor;
  private final Duration firstBackOff;
  private final Duration maxBackOff;
  private final int maxAttempts;
  private final String deadLetterPath;
  private final DeadLetterHandler deadLetterHandler;

  private ConsumerOptions(Executor executor, Duration firstBackOff, Duration maxBackOff, int maxAttempts,
      String deadLetterPath, DeadLetterHandler deadLetterHandler) {
    this.executor = executor;
    this.firstBackOff = firstBackOff;
    this.maxBackOff = maxBackOff;
    this.maxAttempts = maxAttempts;
    this.deadLetterPath = deadLetterPath;
    this.deadLetterHandler = deadLetterHandler;
  }

  /**
   * A thread of the consumer's own; back-off from 1 s doubling up to 30 s; 10 deliveries at most
   * (for one consumer alone, about two and a half minutes of retrying), then the item moves to
   * {@code <queue path>/dead}.
   */
  public static ConsumerOptions defaults() {
    return DEFAULTS;
  }

  /** Runs the handler on {@code executor} rather than on a thread of the consumer's own. */
  public ConsumerOptions withExecutor(Executor executor) {
    Objects.requireNonNull(executor, "executor must not be null");
    return new ConsumerOptions(executor, firstBackOff, maxBackOff, maxAttempts, deadLetterPath, deadLetterHandler);
  }

  /**
   * The back-off after the first failure of an item, and the most it grows to (doubling each time):
   * how long this client leaves a failed item to other clients' consumers before it may take it
   * again. {@code Duration.ZERO} lets it take the item again at once.
   *
   * @throws IllegalArgumentException if {@code first} is negative or {@code max} below it
   */
  public ConsumerOptions withBackOff(Duration first, Duration max) {
    Objects.requireNonNull(first, "first back-off must not be null");
    Objects.requireNonNull(max, "max back-off must not be null");
    if (first.isNegative()) {
      throw new IllegalArgumentException("first back-off must not be negative, was " + first);
    }
    if (max.compareTo(first) < 0) {
      throw new IllegalArgumentException("max back-off must not be below the first (" + first + "), was " + max);
    }
    return new ConsumerOptions(executor, first, max, maxAttempts, deadLetterPath, deadLetterHandler);
  }

  /**
   * How many deliveries of one item may fail before it is a dead letter.
   *
   * @throws IllegalArgumentException if {@code maxAttempts} is below 1
   */
  public ConsumerOptions withMaxAttempts(int maxAttempts) {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
    }
    return new ConsumerOptions(executor, firstBackOff, maxBackOff, maxAttempts, deadLetterPath, deadLetterHandler);
  }

  /**
   * Where dead letters go (created as a container if missing).
   *
   * @throws IllegalArgumentException naming the path if it is not a valid ZooKeeper path
   */
  public ConsumerOptions withDeadLetterPath(String path) {
    ZkPaths.validateRecipePath(path, "dead-letter path");
    return new ConsumerOptions(executor, firstBackOff, maxBackOff, maxAttempts, path, null);
  }

  /** Hands dead letters to {@code handler} instead of moving them to a path. */
  public ConsumerOptions withDeadLetterHandler(DeadLetterHandler handler) {
    Objects.requireNonNull(handler, "handler must not be null");
    return new ConsumerOptions(executor, firstBackOff, maxBackOff, maxAttempts, null, handler);
  }

  /** Empty: a thread of the consumer's own. */
  public Optional<Executor> executor() {
    return Optional.ofNullable(executor);
  }

  public Duration firstBackOff() {
    return firstBackOff;
  }

  public Duration maxBackOff() {
    return maxBackOff;
  }

  public int maxAttempts() {
    return maxAttempts;
  }

  /** The dead-letter path if one was set; empty means {@code <queue path>/dead}, or the handler. */
  public Optional<String> deadLetterPath() {
    return Optional.ofNullable(deadLetterPath);
  }

  public Optional<DeadLetterHandler> deadLetterHandler() {
    return Optional.ofNullable(deadLetterHandler);
  }

  /** The back-off after the failure of delivery number {@code attempt} (1 for the first). */
  public Duration backOffAfter(int attempt) {
    Duration backOff = firstBackOff;
    for (int i = 1; i < attempt && backOff.compareTo(maxBackOff) < 0; i++) {
      backOff = backOff.multipliedBy(2);
    }
    return backOff.compareTo(maxBackOff) > 0 ? maxBackOff : backOff;
  }

  @Override
  public String toString() {
    return "ConsumerOptions[backOff=" + firstBackOff + ".." + maxBackOff + ", maxAttempts=" + maxAttempts
        + (deadLetterHandler != null ? ", deadLetterHandler" : ", deadLetterPath="
            + (deadLetterPath == null ? "<queue>/dead" : deadLetterPath)) + "]";
  }
}
