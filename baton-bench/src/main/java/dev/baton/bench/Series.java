package dev.baton.bench;

import dev.baton.bench.lock.Role;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One contender's figures in one scenario, one per round ({@code null} where it did not run),
 * with extra per-round metrics (latency percentiles, shares, request counts).
 */
public final class Series {
  private final String label;
  private final Role role;
  private final int rounds;
  private final Double[] values;
  private final Map<String, Double[]> extras = new LinkedHashMap<>();
  private boolean capped;

  public Series(String label, Role role, int rounds) {
    this.label = label;
    this.role = role;
    this.rounds = rounds;
    this.values = new Double[rounds];
  }

  public String label() {
    return label;
  }

  public Role role() {
    return role;
  }

  public void put(int round, double value) {
    values[round] = value;
  }

  public void putExtra(String metric, int round, double value) {
    if (Double.isNaN(value)) {
      return;
    }
    extras.computeIfAbsent(metric, m -> new Double[rounds])[round] = value;
  }

  public List<Double> values() {
    return Arrays.asList(values.clone());
  }

  public Spread spread() {
    return Spread.ofOrNull(values());
  }

  public Set<String> extraNames() {
    return extras.keySet();
  }

  public Spread extra(String metric) {
    Double[] found = extras.get(metric);
    return found == null ? null : Spread.ofOrNull(Arrays.asList(found));
  }

  /** Some run hit its time cap: the figure is a bound, not a measurement. */
  public void markCapped() {
    capped = true;
  }

  public boolean isCapped() {
    return capped;
  }

  /** The rounds with a value. */
  public List<Integer> roundsRun() {
    List<Integer> run = new ArrayList<>();
    for (int i = 0; i < rounds; i++) {
      if (values[i] != null) {
        run.add(i);
      }
    }
    return run;
  }
}
