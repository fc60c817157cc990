package dev.baton.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The timeline of a chaos run: faults and the clients' connection changes, each stamped with the
 * milliseconds since the run's origin. A run whose {@link MutualExclusionChecker}s enter their
 * first section at the same origin gets times that line up with the checkers' violation reports.
 * Thread-safe.
 */
public final class ChaosLog {
  private final long originNanos;
  private final Queue<String> lines = new ConcurrentLinkedQueue<>();

  /** @param originNanos the run's origin, a {@link System#nanoTime()} */
  public ChaosLog(long originNanos) {
    this.originNanos = originNanos;
  }

  public long originNanos() {
    return originNanos;
  }

  public void add(String event) {
    lines.add(String.format(Locale.ROOT, "%+11.3f ms  %s", (System.nanoTime() - originNanos) / 1e6, event));
  }

  /** The last {@code count} lines, oldest first, one per line of text. */
  public String tail(int count) {
    List<String> all = new ArrayList<>(lines);
    List<String> last = all.subList(Math.max(0, all.size() - count), all.size());
    StringBuilder text = new StringBuilder();
    if (last.size() < all.size()) {
      text.append("  (").append(all.size() - last.size()).append(" earlier lines left out)\n");
    }
    last.forEach(line -> text.append("  ").append(line).append('\n'));
    return text.toString();
  }
}
