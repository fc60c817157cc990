package dev.baton.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Median, min and max of per-round figures. The median of an even count is the mean of the two
 * middle values.
 */
public record Spread(double median, double min, double max, int count) {

  /** @throws IllegalArgumentException if there is no value */
  public static Spread of(List<Double> values) {
    List<Double> sorted = new ArrayList<>();
    for (Double v : values) {
      if (v != null) {
        sorted.add(v);
      }
    }
    if (sorted.isEmpty()) {
      throw new IllegalArgumentException("no values to summarize");
    }
    Collections.sort(sorted);
    int n = sorted.size();
    double median = n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    return new Spread(median, sorted.get(0), sorted.get(n - 1), n);
  }

  /** As {@link #of}, or null when no round has a value. */
  public static Spread ofOrNull(List<Double> values) {
    return values.stream().anyMatch(v -> v != null) ? of(values) : null;
  }

  /**
   * Ratios taken within each round where both have a figure, oriented so that above 1 means
   * {@code contender} did better: {@code contender / curator} for rates, {@code curator /
   * contender} for times and counts.
   */
  public static List<Double> ratios(List<Double> contender, List<Double> curator, boolean higherIsBetter) {
    List<Double> ratios = new ArrayList<>();
    for (int i = 0; i < Math.min(contender.size(), curator.size()); i++) {
      Double c = contender.get(i);
      Double k = curator.get(i);
      if (c == null || k == null || c <= 0 || k <= 0) {
        continue;
      }
      ratios.add(higherIsBetter ? c / k : k / c);
    }
    return ratios;
  }
}
