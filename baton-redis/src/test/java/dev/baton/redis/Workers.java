package dev.baton.redis;

import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import dev.baton.testkit.MutualExclusionChecker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Contending workers for the mutual-exclusion tests, each on a thread of its own. */
final class Workers {
  private Workers() {}

  /** Runs every worker at once and waits for all; the first that failed fails the caller. */
  static void runAll(List<Callable<Void>> workers) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(workers.size());
    try {
      List<Future<Void>> running = new ArrayList<>();
      for (Callable<Void> worker : workers) {
        running.add(pool.submit(worker));
      }
      for (Future<Void> worker : running) {
        worker.get(3, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /** {@code cycles} times: acquire {@code mutex}, record the section under {@code name}, release. */
  static Callable<Void> batonLoop(Mutex mutex, MutualExclusionChecker checker, String name, int cycles) {
    return () -> {
      for (int i = 0; i < cycles; i++) {
        try (Lease lease = mutex.acquire(Duration.ofSeconds(60));
             MutualExclusionChecker.Section section = checker.enter(name, lease.fencingToken())) {
          lease.addListener((l, state) -> {
            if (!state.isValid()) {
              section.lost();
            }
          });
          Thread.yield();
        }
      }
      return null;
    };
  }
}
