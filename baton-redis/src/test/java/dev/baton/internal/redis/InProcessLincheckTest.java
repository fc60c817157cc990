package dev.baton.internal.redis;

import dev.baton.internal.redis.mutex.LocalCohortLincheck;
import dev.baton.testkit.ModelCheck;
import org.junit.jupiter.api.Test;

/**
 * The model checks (Lincheck) of the structures one Redis client's threads share: each class named
 * here holds one structure's operations, invariants and budget.
 *
 * <p>One test class for all of them, so that they run in one JVM: the first check in a JVM pays
 * for Lincheck's agent, each check for instrumenting the classes it reaches, and the budgets are
 * small (see each check's {@code check()} and {@link dev.baton.testkit.ModelCheck} for a longer
 * run).
 */
class InProcessLincheckTest {
  @Test
  void localCohortOfRedisMutex() {
    LocalCohortLincheck.check();
  }

  @Test
  void leaseListeners() {
    LeaseHoldLincheck.check();
  }

  /** Each check in stress mode: random scenarios on real threads, a few hundred runs each. */
  @Test
  void stressMode() {
    for (Class<?> check : new Class<?>[] {LocalCohortLincheck.class, LeaseHoldLincheck.class}) {
      ModelCheck.stress(5, 200).check(check);
    }
  }
}
