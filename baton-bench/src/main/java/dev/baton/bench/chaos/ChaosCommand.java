package dev.baton.bench.chaos;

import dev.baton.testkit.ChaosRun;
import dev.baton.testkit.ChaosSchedule;
import dev.baton.testkit.contract.ChaosReport;
import dev.baton.testkit.contract.CoordinatorChaos;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code baton-bench chaos}: the chaos run every backend takes in the build ({@link
 * CoordinatorChaos}, the same workloads, faults and checkers as the {@code *ChaosContractTest}s), as
 * long as you like, against an embedded server the command starts itself; it writes the Markdown
 * report (one table per backend, with the seed and the fault schedule) and prints where.
 *
 * <pre>
 * java -jar baton-bench/target/baton-bench.jar chaos --backend redis --duration 60s --seed 42
 * java -jar baton-bench/target/baton-bench.jar chaos --backend all --duration 10m --report docs-run.md
 * </pre>
 *
 * <p>Exit status 0 for a clean run, 2 when a run found a safety problem (listed in the report and
 * on stderr), 64 for bad arguments.
 */
public final class ChaosCommand {
  static final String USAGE = """
      usage: baton-bench chaos --backend zookeeper|redis|postgresql|redis-aof|redis-failover|redis-cluster-failover|mariadb|all[,...]
                               [--duration 60s] [--seed N] [--report FILE]
        --backend   the store(s) to run against, each on an embedded server this command starts;
                    several run one after another, each with the same seed; all is the first three;
                    redis-aof: Redis with an append-only file synced on every write (restarts keep data);
                    redis-failover: a master, a replica and Sentinel, failing over to the lagging replica
                    redis-cluster-failover: a Redis Cluster of three masters with a replica each, a
                    master killed and its lagging replica promoted (CLUSTER FAILOVER TAKEOVER)
                    mariadb: the SQL backend on MariaDB (MySQL's dialect), the machine's mariadbd
                    (Debian's mariadb-server), not a Maven package
        --duration  how long faults strike each backend (90s, 10m, PT1H...; default 60s)
        --seed      the seed of the fault schedule and the workloads (default 20261126)
        --report    the Markdown file to write (default chaos-<backends>-<seed>.md here)""";
  static final long DEFAULT_SEED = 20261126L;
  static final String DEFAULT_DURATION = "60s";

  /** The parsed command line. */
  record Options(List<String> backends, Duration duration, long seed, Path report) {}

  private ChaosCommand() {}

  /** {@code baton-bench chaos ...} ({@code args} without the word {@code chaos}); exits with the status. */
  public static void main(String[] args) {
    // Before any logger exists: the clients' warnings under faults would bury the progress lines.
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "error");
    System.exit(run(args, System.out, System.err));
  }

  /** Runs the command; returns the exit status. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    Options options;
    try {
      if (List.of(args).contains("--help")) {
        out.println(USAGE);
        return 0;
      }
      options = parse(args);
    } catch (IllegalArgumentException e) {
      err.println(e.getMessage());
      err.println(USAGE);
      return 64;
    }
    List<ChaosReport> reports = new ArrayList<>();
    try {
      for (String name : options.backends()) {
        err.printf(Locale.ROOT, "chaos: %s for %d s, seed %d%n", name, options.duration().toSeconds(), options.seed());
        reports.add(runOne(name, options));
        write(options, reports); // after each backend, so a long run leaves its finished tables behind
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err.println("chaos: interrupted");
      return 130;
    } catch (IOException e) {
      err.println("chaos: cannot write " + options.report() + ": " + e.getMessage());
      return 74;
    }
    out.println("Wrote " + options.report().toAbsolutePath());
    boolean clean = true;
    for (ChaosReport report : reports) {
      if (!report.problems().isEmpty()) {
        clean = false;
        err.println("chaos: " + report.backend() + ": " + String.join("; ", report.problems()));
      }
    }
    return clean ? 0 : 2;
  }

  private static ChaosReport runOne(String name, Options options) throws InterruptedException {
    String replay = "java -jar baton-bench/target/baton-bench.jar chaos --backend " + name + " --duration "
        + options.duration().toSeconds() + "s";
    // ChaosRun takes its seed and length from these properties (as the tests' -D options give them).
    System.setProperty(ChaosSchedule.SEED_PROPERTY, Long.toString(options.seed()));
    System.setProperty(ChaosSchedule.DURATION_PROPERTY, options.duration().toMillis() + "ms");
    ChaosRun run = ChaosRun.fromProperties(options.seed(), DEFAULT_DURATION, replay);
    try (ChaosBackend backend = ChaosBackend.named(name).begin()) {
      return new CoordinatorChaos(backend.fixture(), run, backend.name()).run();
    }
  }

  static Options parse(String[] args) {
    List<String> backends = new ArrayList<>();
    Duration duration = ChaosSchedule.parseDuration("--duration", DEFAULT_DURATION);
    long seed = DEFAULT_SEED;
    Path report = null;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      String value = i + 1 < args.length ? args[i + 1] : null;
      switch (arg) {
        case "--backend", "--duration", "--seed", "--report" -> {
          if (value == null || value.startsWith("--")) {
            throw new IllegalArgumentException(arg + " needs a value");
          }
          i++;
        }
        default -> throw new IllegalArgumentException("unknown argument '" + arg + "'");
      }
      switch (arg) {
        case "--backend" -> {
          for (String name : value.split(",")) {
            String trimmed = name.trim().toLowerCase(Locale.ROOT);
            if (trimmed.equals("all")) {
              backends.addAll(ChaosBackend.NAMES);
            } else {
              ChaosBackend.named(trimmed); // refuses an unknown name
              backends.add(trimmed);
            }
          }
        }
        case "--duration" -> duration = ChaosSchedule.parseDuration("--duration", value);
        case "--seed" -> seed = ChaosSchedule.parseSeed("--seed", value);
        default -> report = Path.of(value);
      }
    }
    if (backends.isEmpty()) {
      throw new IllegalArgumentException("--backend is required");
    }
    List<String> distinct = backends.stream().distinct().toList();
    if (report == null) {
      report = Path.of("chaos-" + String.join("-", distinct) + "-" + seed + ".md");
    }
    return new Options(distinct, duration, seed, report);
  }

  private static void write(Options options, List<ChaosReport> reports) throws IOException {
    StringBuilder text = new StringBuilder();
    text.append("## Chaos report\n\n");
    text.append(String.format(Locale.ROOT, "Seed %d, %d s of faults per backend, written %s by `baton-bench chaos"
        + " --backend %s --duration %ds --seed %d`.%n%n", options.seed(), options.duration().toSeconds(),
        Instant.now().truncatedTo(ChronoUnit.SECONDS), String.join(",", options.backends()),
        options.duration().toSeconds(), options.seed()));
    for (ChaosReport report : reports) {
      text.append(report.toMarkdown()).append('\n');
    }
    Path parent = options.report().toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    Files.writeString(options.report(), text, StandardCharsets.UTF_8);
  }
}
