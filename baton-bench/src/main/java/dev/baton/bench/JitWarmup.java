package dev.baton.bench;

import dev.baton.Baton;
import dev.baton.bench.lock.Contender;
import java.time.Duration;
import java.util.List;

/**
 * Untimed uncontended cycles of every lock library before the first scenario, taken in turns.
 *
 * <p>Why: the JIT compiles a library's acquire path only after thousands of calls, and on two
 * cores its compiler threads compete with the client and the server. With a one-second warm-up
 * per scenario, the first scenario (the uncontended mutex) timed Baton's larger client path
 * partly interpreted: Baton's first rounds ran at 45-85% of the raw-client floor and reached it
 * only after about ten seconds of cycles, while the raw pattern, a few lines, was compiled at
 * once. Every library gets the same warm-up, taken in short turns so that no one is compiled
 * while the others sit idle; scenarios still run their own warm-up window.
 */
final class JitWarmup {
  /** One turn of one library; short, so compilation spreads over the turns of all. */
  private static final Duration TURN = Duration.ofSeconds(2);

  private JitWarmup() {}

  /** Runs each contender, one client and one thread, for {@code total} in turns. */
  static void run(BenchContext context, List<Contender> contenders, Duration total) throws Exception {
    if (total.isZero()) {
      return;
    }
    context.progress("JIT warm-up: " + BenchOptions.seconds(total) + " of uncontended cycles per library, in turns");
    long turns = Math.max(1, (total.toMillis() + TURN.toMillis() - 1) / TURN.toMillis());
    Duration turn = total.dividedBy(turns);
    for (long t = 0; t < turns; t++) {
      for (Contender c : contenders) {
        ThroughputRun.run(c, context, context.freshPath("jit-warmup", c.id(), "t" + (t + 1)), 1, 1, turn);
      }
    }
  }
}
