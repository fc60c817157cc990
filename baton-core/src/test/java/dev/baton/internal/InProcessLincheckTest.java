package dev.baton.internal;

import dev.baton.internal.cache.SerialListenersLincheck;
import dev.baton.internal.leadership.LeadershipListenersLincheck;
import dev.baton.internal.lock.CohortLincheck;
import dev.baton.internal.queue.ItemTakersLincheck;
import dev.baton.testkit.ModelCheck;
import org.junit.jupiter.api.Test;

/**
 * The model checks (Lincheck) of the structures one client's threads share, on ZooKeeper's side
 * and in baton-api: each class named here holds one structure's operations, invariants and budget.
 *
 * <p>One test class for all of them, so that they run in one JVM: the first check in a JVM pays
 * for Lincheck's agent, each check for instrumenting the classes it reaches (the ZooKeeper cohort,
 * which reaches a session, and the queue's takers, which reach ZooKeeper's request classes, most),
 * and the budgets are small (see each check's {@code check()} and
 * {@link dev.baton.testkit.ModelCheck} for a longer run). The leadership listeners live in
 * baton-api but are checked here for that reason. {@code InProcessLincheckTest} of baton-redis
 * does the same for the Redis structures.
 */
class InProcessLincheckTest {
  @Test
  void cohortOfZooKeeperMutex() {
    CohortLincheck.check();
  }

  @Test
  void cacheListeners() {
    SerialListenersLincheck.check();
  }

  @Test
  void leadershipListeners() {
    LeadershipListenersLincheck.check();
  }

  @Test
  void queueTakers() {
    ItemTakersLincheck.check();
  }

  /** Each check in stress mode: random scenarios on real threads, a few hundred runs each. */
  @Test
  void stressMode() {
    for (Class<?> check : new Class<?>[] {CohortLincheck.class, SerialListenersLincheck.class,
        LeadershipListenersLincheck.class, ItemTakersLincheck.class}) {
      ModelCheck.stress(5, 200).check(check);
    }
  }
}
