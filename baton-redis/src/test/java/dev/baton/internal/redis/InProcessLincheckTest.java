package dev.baton.internal.redis;

import dev.baton.internal.redis.mutex.LocalCohortLincheck;
import org.junit.jupiter.api.Test;

/**
 * The model checks (Lincheck) of the structures one Redis client's threads share: each class named
 * here holds one structure's operations, invariants and budget.
 *
 * <p>One test class for all of them, so that they run in one JVM: the first check in a JVM pays
 * for Lincheck's agent and the instrumentation of every class loaded so far (15 to 30 s on the
 * build machine under load), each later one only a second or two.
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
}
