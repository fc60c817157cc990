package dev.baton;

import java.time.Duration;
import java.util.Objects;

/**
 * How operations that are safe to repeat are retried after the connection drops: exponential
 * back-off between {@code baseDelay} and {@code maxDelay}, at most {@code maxRetries} times.
 * Retries stop earlier when the session is lost (a session-bound operation cannot succeed on a
 * new session) or the client is closed.
 *
 * @param baseDelay the first pause, doubled on each further retry
 * @param maxDelay the longest pause
 * @param maxRetries how many retries at most; 0 means fail on the first connection loss
 */
public record RetryPolicy(Duration baseDelay, Duration maxDelay, int maxRetries) {

  public RetryPolicy {
    Objects.requireNonNull(baseDelay, "baseDelay");
    Objects.requireNonNull(maxDelay, "maxDelay");
    if (baseDelay.isNegative()) {
      throw new IllegalArgumentException("baseDelay must not be negative, was " + baseDelay);
    }
    if (maxDelay.compareTo(baseDelay) < 0) {
      throw new IllegalArgumentException(
          "maxDelay (" + maxDelay + ") must not be shorter than baseDelay (" + baseDelay + ")");
    }
    if (maxRetries < 0) {
      throw new IllegalArgumentException("maxRetries must not be negative, was " + maxRetries);
    }
  }

  /** The default: from 20 ms doubling up to 1 s, until the session is lost. */
  public static RetryPolicy standard() {
    return new RetryPolicy(Duration.ofMillis(20), Duration.ofSeconds(1), Integer.MAX_VALUE);
  }

  public static RetryPolicy exponentialBackoff(Duration baseDelay, Duration maxDelay, int maxRetries) {
    return new RetryPolicy(baseDelay, maxDelay, maxRetries);
  }

  /** No retries: the first connection loss fails the operation. */
  public static RetryPolicy none() {
    return new RetryPolicy(Duration.ZERO, Duration.ZERO, 0);
  }

  /** The pause before retry number {@code attempt} (counting from 1). */
  public Duration delayBefore(int attempt) {
    int shift = Math.min(Math.max(attempt - 1, 0), 30);
    long nanos = baseDelay.toNanos();
    long delayed = nanos > (Long.MAX_VALUE >> shift) ? Long.MAX_VALUE : nanos << shift;
    return Duration.ofNanos(Math.min(delayed, maxDelay.toNanos()));
  }
}
