package dev.baton.bench;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * The harness's settings. {@code --quick} (about 2.5 minutes on 2 cores) and the default differ
 * in window lengths, warm-ups, the cap of Curator's shared-object run and how many cycles and paths
 * are counted; each can be overridden.
 *
 * @param rounds timed rounds per scenario; every ratio is taken within a round
 * @param window how long each contender runs in a round
 * @param warmup untimed run of each contender before the first round
 * @param jitWarmup untimed uncontended cycles of each lock library, before any scenario, so that the
 *     first scenario measures compiled code (see {@link JitWarmup})
 * @param sharedCap how long the 500-waiter run may take before it is stopped and reported as capped
 * @param sharedCuratorRuns how many rounds run Curator's shared-object 500-waiter case (about 20 s each)
 * @param requestCycles cycles counted on the server for requests per cycle
 * @param paths distinct lock paths taken once each in {@code mutex-100k-paths}
 * @param asyncRounds rounds of the 10,000 async waiters (a default-mode round takes about 7 s):
 *     {@code rounds}, but at most 3, or 2 with {@code --quick}
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
    int paths,
    int asyncRounds,
    Pattern only,
    Path out) {

  static final String USAGE = String.join("\n",
      "Usage: java -jar baton-bench.jar [options]",
      "",
      "Runs Baton and Apache Curator interleaved against one ZooKeeper server started in its own JVM,",
      "and writes a table (stdout), results.json and results.png.",
      "",
      "  --quick               about 2.5 minutes on 2 cores: 3 rounds of 0.6 s, warm-ups of 0.3 s and 8 s,",
      "                        Curator's shared-object run capped at 5 s, 500 cycles counted, 5,000 paths,",
      "                        2 rounds of the 10,000 async waiters",
      "                        (default: 6 rounds of 4 s, warm-ups of 2 s and 10 s, cap 60 s, 2000 cycles,",
      "                        100,000 paths, 3 rounds of the async waiters)",
      "  --rounds N            timed rounds per scenario",
      "  --seconds S           seconds each contender runs in a round (decimals allowed)",
      "  --warmup S            untimed seconds per contender before the first round (decimals allowed)",
      "  --jit-warmup S        untimed seconds of uncontended cycles per library before any scenario",
      "  --shared-cap S        stop the 500-waiter run after S seconds and report it capped",
      "  --shared-curator-runs N  rounds that run Curator's shared-object 500-waiter case (~20 s each)",
      "  --request-cycles N    cycles counted on the server for requests per cycle",
      "  --paths N             distinct lock paths taken once each in mutex-100k-paths",
      "  --only REGEX          run only the scenarios whose name matches",
      "  --out DIR             where results.json and results.png go (default: bench/ beside the jar)",
      "  --help                this text");

  /** @throws IllegalArgumentException naming the bad option */
  static BenchOptions parse(String... args) {
    boolean quick = false;
    for (String arg : args) {
      quick |= arg.equals("--quick");
    }
    // Quick: the JIT warm-up stays long enough for the first scenario to time compiled code
    // (about 8 s per library on 2 cores); the windows and Curator's 20-second case give way.
    int rounds = quick ? 3 : 6;
    Duration window = quick ? Duration.ofMillis(600) : Duration.ofSeconds(4);
    Duration warmup = quick ? Duration.ofMillis(300) : Duration.ofSeconds(2);
    long jitWarmup = quick ? 8 : 10;
    long sharedCap = quick ? 5 : 60;
    Integer sharedCuratorRuns = null;
    int requestCycles = quick ? 500 : 2_000;
    int paths = quick ? 5_000 : 100_000;
    Pattern only = null;
    Path out = null;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      switch (arg) {
        case "--quick" -> { }
        case "--rounds" -> rounds = positiveInt(arg, value(args, ++i, arg));
        case "--seconds" -> window = seconds(arg, value(args, ++i, arg), false);
        case "--warmup" -> warmup = seconds(arg, value(args, ++i, arg), true);
        case "--jit-warmup" -> jitWarmup = nonNegativeInt(arg, value(args, ++i, arg));
        case "--shared-cap" -> sharedCap = positiveInt(arg, value(args, ++i, arg));
        case "--shared-curator-runs" -> sharedCuratorRuns = nonNegativeInt(arg, value(args, ++i, arg));
        case "--request-cycles" -> requestCycles = positiveInt(arg, value(args, ++i, arg));
        case "--paths" -> paths = positiveInt(arg, value(args, ++i, arg));
        case "--only" -> only = Pattern.compile(value(args, ++i, arg));
        case "--out" -> out = Path.of(value(args, ++i, arg));
        default -> throw new IllegalArgumentException("unknown option '" + arg + "'");
      }
    }
    // Curator's shared-object case takes about 20 s a run: once is enough for a quick look.
    int curatorRuns = sharedCuratorRuns != null ? sharedCuratorRuns : quick ? 1 : rounds;
    int asyncRounds = Math.min(rounds, quick ? 2 : 3);
    return new BenchOptions(quick, rounds, window, warmup,
        Duration.ofSeconds(jitWarmup), Duration.ofSeconds(sharedCap), Math.min(curatorRuns, rounds), requestCycles,
        paths, asyncRounds, only, out);
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

  /** Seconds with up to three decimals, as a duration; zero only where {@code zeroAllowed}. */
  private static Duration seconds(String option, String text, boolean zeroAllowed) {
    double value;
    try {
      value = Double.parseDouble(text);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + " needs a number of seconds, was '" + text + "'");
    }
    if (!Double.isFinite(value) || value < 0 || value > 86_400) {
      throw new IllegalArgumentException(option + " must be between 0 and 86400 seconds, was " + text);
    }
    Duration duration = Duration.ofMillis(Math.round(value * 1000));
    if (duration.isZero() && !zeroAllowed) {
      throw new IllegalArgumentException(option + " must be at least 0.001 seconds, was " + text);
    }
    return duration;
  }

  /** A duration as seconds for people: "4 s", "0.5 s". */
  static String seconds(Duration duration) {
    return BigDecimal.valueOf(duration.toMillis(), 3).stripTrailingZeros().toPlainString() + " s";
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
