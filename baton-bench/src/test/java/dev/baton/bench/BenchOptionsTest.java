package dev.baton.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BenchOptionsTest {

  @Test
  void quickShortensWindowsWarmUpsAndCuratorsSharedRun() {
    BenchOptions quick = BenchOptions.parse("--quick");
    assertTrue(quick.quick());
    assertEquals(3, quick.rounds());
    assertEquals(Duration.ofMillis(600), quick.window());
    assertEquals(Duration.ofMillis(300), quick.warmup());
    assertEquals(Duration.ofSeconds(8), quick.jitWarmup());
    assertEquals(Duration.ofSeconds(5), quick.sharedCap());
    assertEquals(1, quick.sharedCuratorRuns());
    assertEquals(500, quick.requestCycles());
    assertEquals(5_000, quick.paths());
    assertEquals(2, quick.asyncRounds());
  }

  @Test
  void theDefaultRunsLongerWindowsInEveryRound() {
    BenchOptions full = BenchOptions.parse();
    assertFalse(full.quick());
    assertEquals(6, full.rounds());
    assertEquals(Duration.ofSeconds(4), full.window());
    assertEquals(Duration.ofSeconds(2), full.warmup());
    assertEquals(Duration.ofSeconds(10), full.jitWarmup());
    assertEquals(Duration.ofSeconds(60), full.sharedCap());
    assertEquals(6, full.sharedCuratorRuns());
    assertEquals(2_000, full.requestCycles());
    assertEquals(100_000, full.paths());
    assertEquals(3, full.asyncRounds());
  }

  @Test
  void quickSettingsGiveWayToExplicitOptionsInEitherOrder() {
    BenchOptions options = BenchOptions.parse("--seconds", "0.25", "--quick", "--warmup", "0", "--shared-cap", "30");
    assertEquals(Duration.ofMillis(250), options.window());
    assertEquals(Duration.ZERO, options.warmup());
    assertEquals(Duration.ofSeconds(30), options.sharedCap());
    assertEquals(3, options.rounds());
  }

  @Test
  void pathsCanBeSetAndAsyncRoundsFollowFewerRounds() {
    BenchOptions options = BenchOptions.parse("--paths", "20000", "--rounds", "1");
    assertEquals(20_000, options.paths());
    assertEquals(1, options.asyncRounds());
  }

  @Test
  void badValuesAreRefusedNamingTheOption() {
    assertEquals("--seconds must be at least 0.001 seconds, was 0",
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse("--seconds", "0")).getMessage());
    assertEquals("--warmup needs a number of seconds, was 'soon'",
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse("--warmup", "soon")).getMessage());
    assertEquals("--seconds must be between 0 and 86400 seconds, was -1",
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse("--seconds", "-1")).getMessage());
    assertEquals("--rounds needs a whole number, was '2.5'",
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse("--rounds", "2.5")).getMessage());
    assertEquals("--paths must be at least 1, was 0",
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse("--paths", "0")).getMessage());
    assertEquals("--only needs a value",
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse("--only")).getMessage());
    assertEquals("unknown option '--fast'",
        assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse("--fast")).getMessage());
  }

  @Test
  void durationsReadAsSecondsForPeople() {
    assertEquals("4 s", BenchOptions.seconds(Duration.ofSeconds(4)));
    assertEquals("0.5 s", BenchOptions.seconds(Duration.ofMillis(500)));
    assertEquals("1.25 s", BenchOptions.seconds(Duration.ofMillis(1_250)));
    assertEquals("0 s", BenchOptions.seconds(Duration.ZERO));
  }
}
