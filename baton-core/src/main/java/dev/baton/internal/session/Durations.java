package dev.baton.internal.session;

import java.time.Duration;

/** Waits as the recipes take them: checked, and in nanoseconds. */
public final class Durations {
  private Durations() {}

  /**
   * A wait's length in nanoseconds, or -1 for "no limit" when it is too long to matter (past
   * what a {@code long} of nanoseconds holds, about 292 years).
   */
  public static long timeoutNanos(Duration timeout) {
    long nanos = java.util.concurrent.TimeUnit.NANOSECONDS.convert(timeout);
    return nanos >= Long.MAX_VALUE / 2 ? -1 : nanos;
  }

  /**
   * {@code timeout} itself, after checking it is a wait a caller may ask for: not null, not
   * negative ({@link Duration#ZERO} means "try once").
   */
  public static Duration checkedTimeout(Duration timeout) {
    java.util.Objects.requireNonNull(timeout, "timeout must not be null");
    if (timeout.isNegative()) {
      throw new IllegalArgumentException("timeout must not be negative, was " + timeout);
    }
    return timeout;
  }
}
