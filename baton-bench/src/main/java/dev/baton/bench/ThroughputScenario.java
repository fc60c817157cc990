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
  private final boolean handOvers;
  private final boolean turns;

  ThroughputScenario(String name, String description, int clients, int threadsPerClient,
      List<Contender> contenders) {
    this(name, description, clients, threadsPerClient, contenders, false, false);
  }

  private ThroughputScenario(String name, String description, int clients, int threadsPerClient,
      List<Contender> contenders, boolean handOvers, boolean turns) {
    this.handOvers = handOvers;
    this.turns = turns;
    this.name = name;
    this.description = description;
    this.clients = clients;
    this.threadsPerClient = threadsPerClient;
    this.contenders = List.copyOf(contenders);
  }

  /**
   * The same scenario, also timing each hand-over between clients (a holder starting its release
   * to another client's acquire returning), with the Baton-to-peer ratio of their p50 in a note.
   */
  ThroughputScenario withHandOvers() {
    return new ThroughputScenario(name, description, clients, threadsPerClient, contenders, true, turns);
  }

  /**
   * The same scenario, timing hand-overs, where a client that released asks again only once another
   * client has taken the lock: every release is then handed to a client that was waiting for it,
   * as when each node of a service takes its turn, rather than taken straight back by its releaser
   * (which a lock that polls does in a tight loop, and which would leave out its waiters' wait).
   */
  ThroughputScenario withTurns() {
    return new ThroughputScenario(name, description, clients, threadsPerClient, contenders, true, true);
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
    List<Double[]> handOverP50 = new ArrayList<>();
    for (Contender c : contenders) {
      series.add(result.add(new Series(c.label(), c.role(), options.rounds())));
      handOverP50.add(new Double[options.rounds()]);
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
            c, context, path, clients, threadsPerClient, options.window(), handOvers, turns);
        Series s = series.get(index);
        s.put(round, run.perSecond());
        s.putExtra("p50Us", round, run.latencyMicros(0.50));
        s.putExtra("p99Us", round, run.latencyMicros(0.99));
        s.putExtra("requestsPerCycle", round, run.requestsPerCycle());
        if (clients > 1) {
          s.putExtra("minClientShare", round, run.minShare());
          s.putExtra("maxClientShare", round, run.maxShare());
        }
        if (handOvers) {
          handOverP50.get(index)[round] = run.handOvers() == 0 ? null : run.handOverMicros(0.50);
          s.putExtra("handOverP50Us", round, run.handOverMicros(0.50));
          s.putExtra("handOverP99Us", round, run.handOverMicros(0.99));
          s.putExtra("handOvers", round, run.handOvers());
          line.append(String.format(java.util.Locale.ROOT, " %s %,.0f/s, %d hand-overs p50 %,.0f us;", c.id(),
              run.perSecond(), run.handOvers(), run.handOverMicros(0.50)));
        } else {
          line.append(String.format(" %s %,.0f/s;", c.id(), run.perSecond()));
        }
      }
      context.progress(line.toString());
    }
    if (handOvers) {
      noteHandOvers(result, handOverP50);
    }
    return result;
  }

  /** Each side's hand-over p50 against the peer's, taken within each round (peer / side: > 1 is faster). */
  private void noteHandOvers(ScenarioResult result, List<Double[]> handOverP50) {
    int peer = -1;
    for (int i = 0; i < contenders.size(); i++) {
      if (contenders.get(i).role() == dev.baton.bench.lock.Role.CURATOR) {
        peer = i;
      }
    }
    StringBuilder note = new StringBuilder("hand-over p50 (a holder starting its release -> another client's"
        + " acquire returned), median over rounds:");
    for (int i = 0; i < contenders.size(); i++) {
      Spread p50 = Spread.ofOrNull(java.util.Arrays.asList(handOverP50.get(i)));
      note.append(String.format(java.util.Locale.ROOT, " %s %s us", contenders.get(i).id(),
          p50 == null ? "-" : String.format(java.util.Locale.ROOT, "%,.0f", p50.median())));
      if (peer >= 0 && i != peer) {
        Spread ratio = Spread.ofOrNull(new ArrayList<>(Spread.ratios(
            java.util.Arrays.asList(handOverP50.get(i)), java.util.Arrays.asList(handOverP50.get(peer)), false)));
        if (ratio != null) {
          note.append(String.format(java.util.Locale.ROOT, " (%.2fx the peer's speed [%.2f-%.2f])",
              ratio.median(), ratio.min(), ratio.max()));
        }
      }
      note.append(i + 1 < contenders.size() ? ";" : "");
    }
    result.note(note.toString());
  }
}
