package dev.baton.bench;

import dev.baton.bench.lock.Contender;
import java.util.ArrayList;
import java.util.List;

/**
 * Acquire+release cycles per second on one lock path, {@code clients} sessions of
 * {@code threadsPerClient} threads. Each round runs every contender for one window in turn, the
 * order rotated from round to round so that none always follows the same neighbour; a warm-up
 * window of each comes first and is not counted.
 */
final class ThroughputScenario implements Scenario {
  private final String name;
  private final String description;
  private final int clients;
  private final int threadsPerClient;
  private final List<Contender> contenders;

  ThroughputScenario(String name, String description, int clients, int threadsPerClient,
      List<Contender> contenders) {
    this.name = name;
    this.description = description;
    this.clients = clients;
    this.threadsPerClient = threadsPerClient;
    this.contenders = List.copyOf(contenders);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public ScenarioResult run(BenchContext context) throws Exception {
    BenchOptions options = context.options();
    ScenarioResult result = new ScenarioResult(name, "cycles/s", true, description);
    List<Series> series = new ArrayList<>();
    for (Contender c : contenders) {
      series.add(result.add(new Series(c.label(), c.role(), options.rounds())));
    }
    if (!options.warmup().isZero()) {
      context.progress(name + ": warm-up, " + BenchOptions.seconds(options.warmup()) + " each");
      for (Contender c : contenders) {
        ThroughputRun.run(c, context, context.freshPath(name, c.id(), "warmup"),
            clients, threadsPerClient, options.warmup());
      }
    }
    for (int round = 0; round < options.rounds(); round++) {
      StringBuilder line = new StringBuilder(name + " round " + (round + 1) + "/" + options.rounds() + ":");
      for (int k = 0; k < contenders.size(); k++) {
        int index = (k + round) % contenders.size();
        Contender c = contenders.get(index);
        String path = context.freshPath(name, c.id(), "r" + (round + 1));
        ThroughputRun.Result run = ThroughputRun.run(
            c, context, path, clients, threadsPerClient, options.window());
        Series s = series.get(index);
        s.put(round, run.perSecond());
        s.putExtra("p50Us", round, run.latencyMicros(0.50));
        s.putExtra("p99Us", round, run.latencyMicros(0.99));
        s.putExtra("requestsPerCycle", round, run.requestsPerCycle());
        if (clients > 1) {
          s.putExtra("minClientShare", round, run.minShare());
          s.putExtra("maxClientShare", round, run.maxShare());
        }
        line.append(String.format(" %s %,.0f/s;", c.id(), run.perSecond()));
      }
      context.progress(line.toString());
    }
    return result;
  }
}
