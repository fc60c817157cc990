package dev.baton.internal;

import java.time.Duration;

/** Durations as people write them in messages: "250 ms", "2 s", "1.5 s", "3 min". */
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

  public static String human(Duration duration) {
    long millis = duration.toMillis();
    if (duration.isNegative()) {
      return duration.toString();
    }
    if (millis < 1_000) {
      return millis == 0 && !duration.isZero() ? duration.toNanos() / 1_000 + " us" : millis + " ms";
    }
    if (millis < 120_000) {
      return millis % 1_000 == 0 ? millis / 1_000 + " s" : String.format("%.1f s", millis / 1_000.0);
    }
    long seconds = duration.getSeconds();
    return seconds % 60 == 0 ? seconds / 60 + " min" : seconds + " s";
  }
}
