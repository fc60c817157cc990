package dev.baton.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class SpreadTest {

  @Test
  void medianOfAnOddCountIsTheMiddleValue() {
    Spread s = Spread.of(List.of(3.0, 1.0, 2.0));
    assertEquals(2.0, s.median());
    assertEquals(1.0, s.min());
    assertEquals(3.0, s.max());
    assertEquals(3, s.count());
  }

  @Test
  void medianOfAnEvenCountIsTheMeanOfTheTwoMiddleValues() {
    assertEquals(2.5, Spread.of(List.of(4.0, 1.0, 3.0, 2.0)).median());
  }

  @Test
  void roundsWithoutAFigureAreLeftOut() {
    Spread s = Spread.of(Arrays.asList(null, 5.0, null, 1.0));
    assertEquals(3.0, s.median());
    assertEquals(2, s.count());
    assertNull(Spread.ofOrNull(Arrays.asList(null, null)));
    assertThrows(IllegalArgumentException.class, () -> Spread.of(List.of()));
  }

  @Test
  void ratesAreComparedAsBatonOverCurator() {
    List<Double> ratios = Spread.ratios(List.of(200.0, 300.0), List.of(100.0, 100.0), true);
    assertEquals(List.of(2.0, 3.0), ratios);
  }

  @Test
  void timesAreComparedAsCuratorOverBatonSoAboveOneStillMeansBatonIsBetter() {
    List<Double> ratios = Spread.ratios(List.of(500.0), List.of(20_000.0), false);
    assertEquals(List.of(40.0), ratios);
  }

  @Test
  void ratiosPairRoundsAndSkipRoundsWhereEitherSideIsMissing() {
    List<Double> ratios = Spread.ratios(Arrays.asList(10.0, 20.0, 30.0), Arrays.asList(5.0, null, 10.0), true);
    assertEquals(List.of(2.0, 3.0), ratios);
  }
}
