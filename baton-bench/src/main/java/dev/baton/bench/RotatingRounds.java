package dev.baton.bench;

import java.util.List;
import java.util.Locale;

/**
 * The rounds of a scenario whose sides each give one figure per round: every side runs once a
 * round, the first of them moving on by one each round, so no side always runs on a fresh server
 * or right after the same neighbour.
 */
final class RotatingRounds {

  /** One side's figure for one round ({@code round} counts from 1). */
  interface Measure<S> {
    double run(S side, int round) throws Exception;
  }

  private RotatingRounds() {}

  /**
   * Runs the rounds; {@code series.get(i)} takes {@code sides.get(i)}'s figures, and each round's
   * progress line shows them as {@code id figure unit}.
   */
  static <S> void run(BenchContext context, String name, List<S> sides, List<String> ids, List<Series> series,
      String unit, Measure<S> measure) throws Exception {
    int rounds = context.options().rounds();
    for (int round = 0; round < rounds; round++) {
      StringBuilder line = new StringBuilder(name + " round " + (round + 1) + "/" + rounds + ":");
      for (int k = 0; k < sides.size(); k++) {
        int index = (k + round) % sides.size();
        double figure = measure.run(sides.get(index), round + 1);
        series.get(index).put(round, figure);
        line.append(String.format(Locale.ROOT, " %s %,.0f %s;", ids.get(index), figure, unit));
      }
      context.progress(line.toString());
    }
  }
}
