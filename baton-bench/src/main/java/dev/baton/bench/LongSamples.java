package dev.baton.bench;

import java.util.Arrays;

/** A growable array of longs (latencies in nanoseconds), one per thread, so no boxing in the loop. */
final class LongSamples {
  private long[] values = new long[4096];
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

  /** All samples of all {@code parts}, sorted. */
  static long[] sortedUnion(Iterable<LongSamples> parts) {
    int total = 0;
    for (LongSamples part : parts) {
      total += part.size;
    }
    long[] all = new long[total];
    int at = 0;
    for (LongSamples part : parts) {
      System.arraycopy(part.values, 0, all, at, part.size);
      at += part.size;
    }
    Arrays.sort(all);
    return all;
  }

  /** Nearest-rank percentile of sorted samples ({@code p} in (0, 1]); NaN when empty. */
  static double nearestRank(long[] sorted, double p) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int rank = (int) Math.ceil(p * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length, rank) - 1)];
  }
}
