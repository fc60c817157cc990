package dev.baton.cli.demo;

import java.util.Arrays;
import java.util.Collection;

/** A growable list of {@code long} measurements (nanoseconds) owned by one thread, and percentiles over several. */
public final class Samples {
  private long[] values = new long[256];
  private int size;

  void add(long value) {
    if (size == values.length) {
      values = Arrays.copyOf(values, size * 2);
    }
    values[size++] = value;
  }

  int size() {
    return size;
  }

  /** All values of {@code lists}, sorted; read only after their owners are done (joined). */
  static long[] sortedUnion(Collection<Samples> lists) {
    long[] all = new long[lists.stream().mapToInt(Samples::size).sum()];
    int at = 0;
    for (Samples s : lists) {
      System.arraycopy(s.values, 0, all, at, s.size);
      at += s.size;
    }
    Arrays.sort(all);
    return all;
  }

  /** Nearest-rank percentile ({@code p} in (0, 100]) of sorted values; 0 when there are none. */
  static long percentile(long[] sorted, double p) {
    if (sorted.length == 0) {
      return 0;
    }
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length, rank) - 1)];
  }
}
