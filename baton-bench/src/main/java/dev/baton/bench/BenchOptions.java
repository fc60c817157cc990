package dev.baton.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * The harness's settings. {@code --quick} (about 6 minutes on 2 cores) and the default differ
 * only in rounds and window lengths; each can be overridden.
 *
 * @param rounds timed rounds per scenario; every ratio is taken within a round
 * @param window how long each contender runs in a round
 * @param warmup untimed run of each contender before the first round
 * @param jitWarmup untimed uncontended cycles of each lock library, before any scenario, so that the
 *     first scenario measures compiled code (see {@link JitWarmup})
 * @param sharedCap how long the 500-waiter run may take before it is stopped and reported as capped
 * @param sharedCuratorRuns how many rounds run Curator's shared-object 500-waiter case (about 20 s each)
 * @param requestCycles cycles counted on the server for requests per cycle
 * @param only runs only the scenarios whose name this matches; null runs all
 * @param out where results.json and results.png go; null: {@code bench/} beside the jar
 */
public record BenchOptions(
    boolean quick,
    int rounds,
    Duration window,
    Duration warmup,
    Duration jitWarmup,
    Duration sharedCap,
    int sharedCuratorRuns,
    int requestCycles,
    Pattern only,
    Path out) {

  static final String USAGE = String.join("\n",
      "Usage: java -jar baton-bench.jar [options]",
      "",
      "Runs Baton and Apache Curator interleaved against one ZooKeeper server started in its own JVM,",
      "and writes a table (stdout), results.json and results.png.",
      "",
      "  --quick               about 6 minutes on 2 cores: 3 rounds of 2 s (default: 6 rounds of 4 s)",
      "  --rounds N            timed rounds per scenario",
      "  --seconds S           seconds each contender runs in a round",
      "  --warmup S            untimed seconds per contender before the first round",
      "  --jit-warmup S        untimed seconds of uncontended cycles per library before any scenario (default 10)",
      "  --shared-cap S        stop the 500-waiter run after S seconds and report it capped (default 60)",
      "  --shared-curator-runs N  rounds that run Curator's shared-object 500-waiter case (~20 s each)",
      "  --request-cycles N    cycles counted on the server for requests per cycle (default 2000)",
      "  --only REGEX          run only the scenarios whose name matches",
      "  --out DIR             where results.json and results.png go (default: bench/ beside the jar)",
      "  --help                this text");

  /** @throws IllegalArgumentException naming the bad option */
  static BenchOptions parse(String... args) {
    boolean quick = false;
    for (String arg : args) {
      quick |= arg.equals("--quick");
    }
    int rounds = quick ? 3 : 6;
    long seconds = quick ? 2 : 4;
    long warmup = quick ? 1 : 2;
    long jitWarmup = 10;
    long sharedCap = 60;
    Integer sharedCuratorRuns = null;
    int requestCycles = 2_000;
    Pattern only = null;
    Path out = null;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      switch (arg) {
        case "--quick" -> { }
        case "--rounds" -> rounds = positiveInt(arg, value(args, ++i, arg));
        case "--seconds" -> seconds = positiveInt(arg, value(args, ++i, arg));
        case "--warmup" -> warmup = nonNegativeInt(arg, value(args, ++i, arg));
        case "--jit-warmup" -> jitWarmup = nonNegativeInt(arg, value(args, ++i, arg));
        case "--shared-cap" -> sharedCap = positiveInt(arg, value(args, ++i, arg));
        case "--shared-curator-runs" -> sharedCuratorRuns = nonNegativeInt(arg, value(args, ++i, arg));
        case "--request-cycles" -> requestCycles = positiveInt(arg, value(args, ++i, arg));
        case "--only" -> only = Pattern.compile(value(args, ++i, arg));
        case "--out" -> out = Path.of(value(args, ++i, arg));
        default -> throw new IllegalArgumentException("unknown option '" + arg + "'");
      }
    }
    // Curator's shared-object case takes about 20 s a run: once is enough for a quick look.
    int curatorRuns = sharedCuratorRuns != null ? sharedCuratorRuns : quick ? 1 : rounds;
    return new BenchOptions(quick, rounds, Duration.ofSeconds(seconds), Duration.ofSeconds(warmup),
        Duration.ofSeconds(jitWarmup), Duration.ofSeconds(sharedCap), Math.min(curatorRuns, rounds), requestCycles,
        only, out);
  }

  boolean selects(String scenario) {
    return only == null || only.matcher(scenario).find();
  }

  private static String value(String[] args, int i, String option) {
    if (i >= args.length) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return args[i];
  }

  private static int positiveInt(String option, String text) {
    int n = nonNegativeInt(option, text);
    if (n == 0) {
      throw new IllegalArgumentException(option + " must be at least 1, was 0");
    }
    return n;
  }

  private static int nonNegativeInt(String option, String text) {
    try {
      int n = Integer.parseInt(text);
      if (n < 0) {
        throw new IllegalArgumentException(option + " must not be negative, was " + n);
      }
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + " needs a whole number, was '" + text + "'");
    }
  }
}
