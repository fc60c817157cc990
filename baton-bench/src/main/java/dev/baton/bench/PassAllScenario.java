package dev.baton.bench;

import dev.baton.Baton;
import dev.baton.bench.lock.Contender;
import dev.baton.bench.lock.Role;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code mutex-shared-500}: ONE lock object shared by 500 threads of one client; time until all
 * have passed once after the holder lets go (lower is better, so the ratio is Curator / Baton).
 * Curator's shared object wakes every waiting thread on every release (about 20 s here), so its
 * run is capped and may be limited to fewer rounds; one object per thread, for both libraries,
 * is measured beside it for reference.
 */
final class PassAllScenario implements Scenario {
  static final String NAME = "mutex-shared-500";
  private final int waiters;
  private final List<Contender> contenders;

  PassAllScenario(int waiters, List<Contender> contenders) {
    this.waiters = waiters;
    this.contenders = List.copyOf(contenders);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public ScenarioResult run(BenchContext context) throws Exception {
    BenchOptions options = context.options();
    ScenarioResult result = new ScenarioResult(NAME, "ms to all pass", false,
        "1 client, " + waiters + " threads queued behind the main thread on one lock object, then all pass once");
    List<Series> series = new ArrayList<>();
    for (Contender c : contenders) {
      series.add(result.add(new Series(c.label(), c.role(), options.rounds())));
    }
    List<Series> references = result.withRole(Role.REFERENCE);
    if (references.size() == 2) {
      result.compare("one object per thread (reference)", references.get(0), references.get(1));
    }
    if (options.sharedCuratorRuns() < options.rounds()) {
      result.note("Curator with one shared object ran in " + options.sharedCuratorRuns() + " of "
          + options.rounds() + " rounds (about 20 s a run); its ratio is over those rounds only.");
    }
    if (!options.warmup().isZero()) {
      // The first 500-thread run in a JVM is the slowest (threads, JIT): once each, not counted.
      // Curator's shared object is left out: it would add about 20 s to warm nothing new.
      context.progress(NAME + ": warm-up, one untimed run each");
      for (Contender c : contenders) {
        if (c.role() != Role.CURATOR) {
          PassAllRun.run(c, context, context.freshPath(NAME, c.id(), "warmup"), waiters, options.sharedCap());
        }
      }
    }
    for (int round = 0; round < options.rounds(); round++) {
      StringBuilder line = new StringBuilder(NAME + " round " + (round + 1) + "/" + options.rounds() + ":");
      for (int k = 0; k < contenders.size(); k++) {
        int index = (k + round) % contenders.size();
        Contender c = contenders.get(index);
        if (c.role() == Role.CURATOR && round >= options.sharedCuratorRuns()) {
          continue;
        }
        String path = context.freshPath(NAME, c.id(), "r" + (round + 1));
        PassAllRun.Result run = PassAllRun.run(c, context, path, waiters, options.sharedCap());
        Series s = series.get(index);
        s.put(round, run.millis());
        s.putExtra("requestsPerWaiter", round, run.requestsPerWaiter());
        s.putExtra("passed", round, run.passed());
        if (run.capped()) {
          s.markCapped();
        }
        line.append(String.format(" %s %s%,.0f ms (%d passed, %.1f requests/waiter);", c.id(),
            run.capped() ? ">=" : "", run.millis(), run.passed(), run.requestsPerWaiter()));
      }
      context.progress(line.toString());
    }
    return result;
  }
}
