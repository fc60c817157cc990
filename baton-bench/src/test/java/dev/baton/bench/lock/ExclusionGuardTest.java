package dev.baton.bench.lock;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ExclusionGuardTest {

  @Test
  void oneHolderAtATimePasses() {
    ExclusionGuard guard = new ExclusionGuard("/locks/a");
    for (int i = 0; i < 3; i++) {
      assertDoesNotThrow(guard::enter);
      guard.exit();
    }
  }

  @Test
  void aSecondHolderStopsTheBenchmarkNamingThePath() {
    ExclusionGuard guard = new ExclusionGuard("/locks/a");
    guard.enter();
    ExclusionGuard.MutualExclusionViolation violation =
        assertThrows(ExclusionGuard.MutualExclusionViolation.class, guard::enter);
    assertTrue(violation.getMessage().contains("/locks/a"), violation.getMessage());
  }
}
