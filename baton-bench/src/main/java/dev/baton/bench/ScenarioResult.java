package dev.baton.bench;

import dev.baton.Baton;
import dev.baton.bench.lock.Role;
import java.util.ArrayList;
import java.util.List;

/**
 * What one scenario measured: a series per contender, Baton and Curator first, and how to read
 * them (unit, and whether more is better).
 */
public final class ScenarioResult {
  private final String name;
  private final String unit;
  private final boolean higherIsBetter;
  private final String description;
  private final boolean implemented;
  private final List<Series> series = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();
  private final List<Comparison> comparisons = new ArrayList<>();

  /**
   * A second Baton-to-Curator pairing inside one scenario (e.g. both with one object per thread),
   * oriented like the scenario's main ratio.
   */
  public record Comparison(String label, Series baton, Series curator) {}

  public ScenarioResult(String name, String unit, boolean higherIsBetter, String description) {
    this(name, unit, higherIsBetter, description, true);
  }

  private ScenarioResult(String name, String unit, boolean higherIsBetter, String description,
      boolean implemented) {
    this.name = name;
    this.unit = unit;
    this.higherIsBetter = higherIsBetter;
    this.description = description;
    this.implemented = implemented;
  }

  /** A scenario whose Baton side does not exist yet: listed, never given a figure. */
  public static ScenarioResult notImplemented(String name, String unit, String description) {
    return new ScenarioResult(name, unit, true, description, false);
  }

  public Series add(Series s) {
    series.add(s);
    return s;
  }

  public void compare(String label, Series baton, Series curator) {
    comparisons.add(new Comparison(label, baton, curator));
  }

  public List<Comparison> comparisons() {
    return comparisons;
  }

  /** A comparison's ratio, round by round; null without a common round. */
  public Spread ratio(Comparison c) {
    List<Double> ratios = Spread.ratios(c.baton().values(), c.curator().values(), higherIsBetter);
    return ratios.isEmpty() ? null : Spread.of(ratios);
  }

  public void note(String note) {
    notes.add(note);
  }

  public String name() {
    return name;
  }

  public String unit() {
    return unit;
  }

  public boolean higherIsBetter() {
    return higherIsBetter;
  }

  public String description() {
    return description;
  }

  public boolean implemented() {
    return implemented;
  }

  public List<String> notes() {
    return notes;
  }

  public List<Series> series() {
    return series;
  }

  public Series baton() {
    return first(Role.BATON);
  }

  public Series curator() {
    return first(Role.CURATOR);
  }

  public List<Series> withRole(Role role) {
    return series.stream().filter(s -> s.role() == role).toList();
  }

  /** {@code s} against Curator, round by round; null without a common round. */
  public Spread ratioToCurator(Series s) {
    Series curator = curator();
    if (s == null || curator == null) {
      return null;
    }
    List<Double> ratios = Spread.ratios(s.values(), curator.values(), higherIsBetter);
    return ratios.isEmpty() ? null : Spread.of(ratios);
  }

  private Series first(Role role) {
    return series.stream().filter(s -> s.role() == role).findFirst().orElse(null);
  }
}
