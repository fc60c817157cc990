package dev.baton.bench;

import dev.baton.Baton;
import dev.baton.bench.lock.BenchLock;
import dev.baton.bench.lock.Contender;
import dev.baton.bench.lock.LockClient;
import java.util.List;

/**
 * Requests one uncontended acquire+release sends, read from the server's {@code
 * zk_packets_received} around {@code requestCycles} cycles on an otherwise idle server (no other
 * session open: an idle session's pings would count). Fewer is better, so the ratio is Curator /
 * Baton. The raw create+delete control must read 2.0.
 */
final class RequestCountScenario implements Scenario {
  static final String NAME = "requests-per-cycle";
  /** Cycles before counting: the first creates the lock's parents, later ones settle the JIT. */
  private static final int WARM_CYCLES = 50;
  private final List<Contender> contenders;

  RequestCountScenario(List<Contender> contenders) {
    this.contenders = List.copyOf(contenders);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public ScenarioResult run(BenchContext context) throws Exception {
    int cycles = context.options().requestCycles();
    ScenarioResult result = new ScenarioResult(NAME, "requests/cycle", false,
        "uncontended acquire+release, server packets over " + cycles + " cycles, idle server");
    StringBuilder line = new StringBuilder(NAME + ":");
    for (Contender c : contenders) {
      String path = context.freshPath(NAME, c.id(), "count");
      context.closeAdmin();
      double perCycle = count(c, context, path, cycles);
      result.add(new Series(c.label(), c.role(), 1)).put(0, perCycle);
      line.append(String.format(" %s %.3f;", c.id(), perCycle));
    }
    context.progress(line.toString());
    return result;
  }

  private static double count(Contender contender, BenchContext context, String path, int cycles)
      throws Exception {
    try (LockClient client = contender.library().connect(context.connectString())) {
      BenchLock lock = client.lock(path);
      for (int i = 0; i < WARM_CYCLES; i++) {
        lock.acquire().release();
      }
      client.roundTrip(path); // the last release has reached the server
      long readingCost = context.counters().readingCost();
      long before = context.counters().packetsReceived();
      for (int i = 0; i < cycles; i++) {
        lock.acquire().release();
      }
      client.roundTrip(path); // one request, answered after every release sent before it
      long after = context.counters().packetsReceived();
      return (double) (after - before - 1 - readingCost) / cycles;
    }
  }
}
