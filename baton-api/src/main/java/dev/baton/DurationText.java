package dev.baton;

import java.time.Duration;

/** Durations as people write them in messages: "250 ms", "2 s", "1.5 s", "3 min". */
final class DurationText {
  private DurationText() {}

  static String human(Duration duration) {
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
