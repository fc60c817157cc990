package dev.baton.bench;


import dev.baton.Baton;
import dev.baton.bench.lock.BatonLibrary;
import dev.baton.bench.lock.Contender;
import dev.baton.bench.lock.CreateDeleteControl;
import dev.baton.bench.lock.CuratorLibrary;
import dev.baton.bench.lock.JdbcBatonLibrary;
import dev.baton.bench.lock.PipelinedPattern;
import dev.baton.bench.lock.RawLibrary;
import dev.baton.bench.lock.RawPgNotifyLibrary;
import dev.baton.bench.lock.RawRedisLibrary;
import dev.baton.bench.lock.RedisBatonLibrary;
import dev.baton.bench.lock.RedissonLibrary;
import dev.baton.bench.lock.Recipe;
import dev.baton.bench.lock.Role;
import dev.baton.bench.lock.SequentialPattern;
import dev.baton.bench.lock.ShedLockLibrary;
import dev.baton.bench.lock.SpringJdbcLockLibrary;
import dev.baton.bench.lock.Sharing;
import dev.baton.bench.lock.WatchAllLowerPattern;
import dev.baton.lock.MutexOptions;
import dev.baton.redis.RedisMutexOptions;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Baton beside Apache Curator, interleaved on one ZooKeeper server, with the raw-client request
 * patterns that bound what any lock library can do ("floors").
 *
 * <pre>
 * ./mvnw -q -pl baton-bench -am package -DskipTests
 * java -jar baton-bench/target/baton-bench.jar --quick     # about 2.5 minutes
 * java -jar baton-bench/target/baton-bench.jar             # 6 rounds of 4 s: several times longer
 * java -jar baton-bench/target/baton-bench.jar --help
 * </pre>
 *
 * <p>Method: one standalone ZooKeeper 3.9.5 server (fsync on) in a JVM of its own, on loopback.
 * Each scenario runs several rounds; in a round every contender runs for a few seconds in turn
 * (after one untimed warm-up each, and after a JIT warm-up of every library before the first
 * scenario: {@link JitWarmup}), and each ratio to Curator is taken within the round, so a
 * noisy neighbour slows both sides of a ratio alike. The table reports the median with the min and
 * max over rounds. Every cycle of every contender checks mutual exclusion in this process and the
 * run stops on a violation. For figures close to the baseline's, give this JVM a fixed heap
 * ({@code java -Xms1g -Xmx1g -jar ...}).
 *
 * <p>Output: the table on stdout (progress on stderr), {@code results.json} and {@code
 * results.png} in {@code bench/} beside the jar (or {@code --out}), the server's log in {@code
 * zookeeper.log} there. Exit status 2 when a contender failed or broke mutual exclusion.
 */
public final class BenchMain {
  /** Display order; the request count runs first, while the server has seen nothing else. */
  private static final List<String> DISPLAY_ORDER = List.of(
      "mutex-uncontended", "mutex-4x4", "mutex-4x1", "redis-mutex-uncontended", "redis-mutex-4x4",
      "redis-mutex-4x1", "redis-rwlock-read-8", "redis-semaphore-3x8", LeaderFailoverScenario.REDIS_NAME,
      "jdbc-mutex-uncontended", "jdbc-mutex-4x1", "jdbc-mutex-4x1-turns", PassAllScenario.NAME, AsyncWaitersScenario.NAME,
      AsyncWaitersScenario.DEFAULT_MODE_NAME,
      "mutex-cached-uncontended", ManyPathsScenario.NAME, "rwlock-read-uncontended", "rwlock-read-8", "semaphore-3x8",
      ConfigPropagationScenario.NAME, ConfigHistoryScenario.NAME, CacheHeapScenario.NAME, RequestCountScenario.NAME);

  private BenchMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("chaos")) { // the chaos report: ChaosCommand's own usage
      dev.baton.bench.chaos.ChaosCommand.main(java.util.Arrays.copyOfRange(args, 1, args.length));
      return;
    }
    // Before any logger exists: the clients' INFO chatter would bury the table.
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    System.setProperty("java.awt.headless", "true");
    BenchOptions options;
    try {
      if (List.of(args).contains("--help")) {
        System.out.println(BenchOptions.USAGE);
        return;
      }
      options = BenchOptions.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.err.println(BenchOptions.USAGE);
      System.exit(64);
      return;
    }
    try {
      run(options);
    } catch (BenchFailure e) {
      System.err.println();
      System.err.println("BENCHMARK FAILED: " + e.getMessage());
      if (e.getCause() != null) {
        e.getCause().printStackTrace();
      }
      System.exit(2);
    }
  }

  private static void run(BenchOptions options) throws Exception {
    Path out = options.out() != null ? options.out() : defaultOutputFolder();
    long started = System.nanoTime();
    List<ScenarioResult> results = new ArrayList<>();
    try (ServerProcess server = ServerProcess.start(out.resolve("zookeeper.log"));
        BenchContext context = new BenchContext(options, server.host(), server.port(), System.err)) {
      context.progress("ZooKeeper server pid " + server.pid() + " at " + context.connectString()
          + "; " + options.rounds() + " rounds of " + BenchOptions.seconds(options.window()) + " per contender");
      JitWarmup.run(context, warmedLibraries(options), options.jitWarmup());
      context.progress(String.format("Server start and JIT warm-up took %.1f s", (System.nanoTime() - started) / 1e9));
      for (Scenario scenario : scenarios()) {
        if (options.selects(scenario.name())) {
          long scenarioStarted = System.nanoTime();
          results.add(scenario.run(context));
          // Says where a run's time goes, e.g. when tuning --quick.
          context.progress(String.format("%s took %.1f s", scenario.name(), (System.nanoTime() - scenarioStarted) / 1e9));
        }
      }
    }
    results.sort(Comparator.comparingInt(r -> displayIndex(r.name())));
    String header = header(options, (System.nanoTime() - started) / 1e9);
    System.out.print(Report.table(results, header));
    Path json = out.resolve("results.json");
    Report.writeJson(results, json);
    Path png = out.resolve("results.png");
    boolean charted = RatioChart.write(results, png, options.rounds() + " rounds x "
        + BenchOptions.seconds(options.window()) + ", " + LocalDateTime.now().format(DateTimeFormatter.ISO_LOCAL_DATE));
    System.out.println();
    System.out.println("Wrote " + json + (charted ? " and " + png : ""));
  }

  /** Local hand-overs in a row in the 4x4 scenario: the fairness bound reported beside it. */
  static final int LOCAL_HAND_OVERS = 8;

  /** The scenarios, in the order they run. */
  static List<Scenario> scenarios() {
    Contender baton = new Contender("baton", "Baton Mutex", Role.BATON, new BatonLibrary(), Sharing.PER_CLIENT);
    Contender curator = new Contender("curator", "Curator InterProcessMutex (one per thread)",
        Role.CURATOR, new CuratorLibrary(), Sharing.PER_THREAD);
    Contender curatorPlain = new Contender("curator", "Curator InterProcessMutex",
        Role.CURATOR, new CuratorLibrary(), Sharing.PER_THREAD);

    Contender sequential = floor("raw-a", "(a) raw: create, wait; list, wait; delete, wait (Curator's pattern)",
        new SequentialPattern());
    Contender pipelinedWaited = floor("raw-b", "(b) raw: create+list together; delete waited",
        PipelinedPattern.deleteWaited());
    Contender pipelinedUnwaited = floor("raw-c",
        "(c) raw: create+list together; delete not waited (Baton's pattern)", PipelinedPattern.deleteNotWaited());
    Contender watchPredecessor = floor("raw-d",
        "(d) raw: create+list together, watch predecessor, list again on wake; delete waited",
        PipelinedPattern.deleteWaited());
    Contender watchAllLower = floor("raw-e",
        "(e) raw: create+list together, watch every lower node, no second list; delete waited",
        new WatchAllLowerPattern());
    Contender control = floor("raw-control", "raw create+delete (control: must read 2.00)",
        new CreateDeleteControl());

    List<Scenario> scenarios = new ArrayList<>();
    scenarios.add(new RequestCountScenario(List.of(baton, curatorPlain, control)));
    scenarios.add(new ThroughputScenario("mutex-uncontended", "1 client, 1 thread, acquire+release",
        1, 1, List.of(baton, curatorPlain, sequential, pipelinedWaited, pipelinedUnwaited)));
    Contender cohorted = new Contender("baton-cohorted",
        "Baton Mutex, local hand-over (at most " + LOCAL_HAND_OVERS + " in a row)", Role.BATON,
        new BatonLibrary(MutexOptions.defaults().withLocalHandOver(LOCAL_HAND_OVERS)), Sharing.PER_CLIENT);
    Contender batonDefault = new Contender("baton", "reference: Baton Mutex, default mode", Role.REFERENCE,
        new BatonLibrary(), Sharing.PER_CLIENT);
    scenarios.add(new ThroughputScenario("mutex-4x4",
        "one path, 4 clients x 4 threads (Baton: one Mutex per client; Curator: one InterProcessMutex per thread)",
        4, 4, List.of(cohorted, curator, batonDefault)));
    scenarios.add(new ThroughputScenario("mutex-4x1", "one path, 4 clients x 1 thread; every hand-over crosses sessions",
        4, 1, List.of(baton, curatorPlain, watchPredecessor, watchAllLower)));
    scenarios.addAll(redisScenarios());
    scenarios.addAll(jdbcScenarios());
    scenarios.add(new PassAllScenario(500, List.of(
        new Contender("baton-shared", "Baton, one Mutex shared by 500 threads", Role.BATON,
            new BatonLibrary(), Sharing.PER_CLIENT),
        new Contender("curator-shared", "Curator, one InterProcessMutex shared by 500 threads",
            Role.CURATOR, new CuratorLibrary(), Sharing.PER_CLIENT),
        new Contender("baton-per-thread", "reference: Baton, one Mutex per thread", Role.REFERENCE,
            new BatonLibrary(), Sharing.PER_THREAD),
        new Contender("curator-per-thread", "reference: Curator, one InterProcessMutex per thread",
            Role.REFERENCE, new CuratorLibrary(), Sharing.PER_THREAD))));
    scenarios.add(new AsyncWaitersScenario());
    scenarios.add(AsyncWaitersScenario.defaultMode());
    scenarios.add(new ManyPathsScenario());
    scenarios.add(new ThroughputScenario("rwlock-read-uncontended", "1 client, 1 thread, read lock acquire+release",
        1, 1, List.of(recipe("baton-read", "Baton read lock", Role.BATON, Recipe.READ_LOCK),
            recipe("curator-read", "Curator InterProcessReadWriteLock.readLock()", Role.CURATOR, Recipe.READ_LOCK))));
    scenarios.add(new ThroughputScenario("rwlock-read-8",
        "1 client x 8 threads, read lock; readers overlap (Baton: one lock per client; Curator: one per thread)",
        1, 8, List.of(recipe("baton-read", "Baton read lock", Role.BATON, Recipe.READ_LOCK),
            recipe("curator-read", "Curator InterProcessReadWriteLock.readLock()", Role.CURATOR, Recipe.READ_LOCK))));
    scenarios.add(new ThroughputScenario("semaphore-3x8",
        "semaphore of 3 permits, 2 clients x 4 threads, one permit each (Baton: one per client; Curator: one per thread)",
        2, 4, List.of(recipe("baton-semaphore", "Baton semaphore", Role.BATON, Recipe.SEMAPHORE_3),
            recipe("curator-semaphore", "Curator InterProcessSemaphoreV2", Role.CURATOR, Recipe.SEMAPHORE_3))));
    scenarios.add(new ThroughputScenario("mutex-cached-uncontended",
        "1 client, 1 thread, acquire+release; Baton keeps its node while no other client queues",
        1, 1, List.of(new Contender("baton-cached", "Baton Mutex, caching (idle 10 s)", Role.BATON,
            new BatonLibrary(MutexOptions.defaults().withCaching(Duration.ofSeconds(10))), Sharing.PER_CLIENT),
            curatorPlain)));
    scenarios.add(LeaderFailoverScenario.zooKeeper());
    scenarios.add(new ConfigPropagationScenario());
    scenarios.add(new ConfigHistoryScenario());
    scenarios.add(new CacheHeapScenario());
    return scenarios;
  }

  /**
   * The same mutex rows on Redis, Baton's Redis backend beside Redisson's {@code RLock} (the peer
   * of these rows, in the table's peer column) and the hand-written scheme as the floor.
   */
  private static List<Scenario> redisScenarios() {
    Contender baton = batonOnRedis();
    Contender redisson = redisson();
    Contender rawWaited = rawRedis(true);
    Contender rawUnwaited = rawRedis(false);
    Contender cohorted = new Contender("baton-redis-cohorted",
        "Baton Mutex on Redis, local hand-over (at most " + LOCAL_HAND_OVERS + " in a row)", Role.BATON,
        new RedisBatonLibrary(RedisMutexOptions.defaults().withLocalHandOver(LOCAL_HAND_OVERS)), Sharing.PER_CLIENT);
    Contender batonDefault = new Contender("baton-redis", "reference: Baton Mutex on Redis, default mode",
        Role.REFERENCE, new RedisBatonLibrary(RedisMutexOptions.defaults()), Sharing.PER_CLIENT);
    return List.of(
        new ThroughputScenario("redis-mutex-uncontended", "Redis: 1 client, 1 thread, acquire+release",
            1, 1, List.of(baton, redisson, rawWaited, rawUnwaited)),
        new ThroughputScenario("redis-mutex-4x4",
            "Redis: one name, 4 clients x 4 threads (Baton: one Mutex per client; Redisson: one RLock per thread)",
            4, 4, List.of(cohorted, redisson, batonDefault)),
        new ThroughputScenario("redis-mutex-4x1", "Redis: one name, 4 clients x 1 thread",
            4, 1, List.of(baton, redisson)),
        new ThroughputScenario("redis-rwlock-read-8",
            "Redis: 1 client x 8 threads, read lock; readers overlap (Baton: one lock per client; Redisson: one per thread)",
            1, 8, List.of(
                new Contender("baton-redis-read", "Baton read lock on Redis", Role.BATON,
                    new RedisBatonLibrary(Recipe.READ_LOCK), Sharing.PER_CLIENT),
                new Contender("redisson-read", "Redisson RReadWriteLock.readLock()", Role.CURATOR,
                    new RedissonLibrary(RedissonLibrary.Kind.READ_LOCK), Sharing.PER_THREAD))),
        new ThroughputScenario("redis-semaphore-3x8",
            "Redis: semaphore of 3 permits, 2 clients x 4 threads, one permit each (Baton: one per client; Redisson: one per thread)",
            2, 4, List.of(
                new Contender("baton-redis-semaphore", "Baton semaphore on Redis", Role.BATON,
                    new RedisBatonLibrary(Recipe.SEMAPHORE_3), Sharing.PER_CLIENT),
                new Contender("redisson-permit-semaphore", "Redisson RPermitExpirableSemaphore, acquire(30 s)",
                    Role.CURATOR, new RedissonLibrary(RedissonLibrary.Kind.EXPIRABLE_SEMAPHORE_3), Sharing.PER_THREAD),
                new Contender("redisson-semaphore", "reference: Redisson RSemaphore (permits never expire)",
                    Role.REFERENCE, new RedissonLibrary(RedissonLibrary.Kind.SEMAPHORE_3), Sharing.PER_THREAD))),
        LeaderFailoverScenario.redis());
  }

  /**
   * The mutex on PostgreSQL: Baton's JDBC backend beside ShedLock's JDBC provider (the peer) and
   * Spring Integration's JdbcLockRegistry, each client with a pool of its own on one database.
   */
  private static List<Scenario> jdbcScenarios() {
    Contender baton = new Contender("baton-jdbc", "Baton Mutex on PostgreSQL (fencing token included)", Role.BATON,
        new JdbcBatonLibrary(), Sharing.PER_CLIENT);
    Contender shedLock = new Contender("shedlock", "ShedLock JdbcTemplateLockProvider (retried at once)",
        Role.CURATOR, new ShedLockLibrary(), Sharing.PER_CLIENT);
    Contender spring = new Contender("spring-jdbc", "Spring Integration JdbcLockRegistry (polls every 100 ms)",
        Role.REFERENCE, new SpringJdbcLockLibrary(), Sharing.PER_CLIENT);
    // Another mode of Baton's, beside the default (the row under test): the row stays with its
    // client for 100 ms after a release nobody else asked for, and passes between its threads.
    Contender cached = new Contender("baton-jdbc-cached", "Baton Mutex on PostgreSQL, caching 100 ms, local hand-over "
        + LOCAL_HAND_OVERS + " in a row", Role.REFERENCE, new JdbcBatonLibrary(MutexOptions.defaults()
            .withCaching(Duration.ofMillis(100)).withLocalHandOver(LOCAL_HAND_OVERS)), Sharing.PER_CLIENT);
    Contender raw = floor("raw-pg-notify", "raw: upsert if free, release notifying if wanted, a refused client"
        + " waits for a notify (no token, expiry or fairness)", new RawPgNotifyLibrary());
    return List.of(
        new ThroughputScenario("jdbc-mutex-uncontended", "PostgreSQL: 1 client, 1 thread, acquire+release",
            1, 1, List.of(baton, shedLock, spring, cached, raw)),
        new ThroughputScenario("jdbc-mutex-4x1", "PostgreSQL: one name, 4 clients x 1 thread",
            4, 1, List.of(baton, shedLock, spring, cached, raw)).withHandOvers(),
        new ThroughputScenario("jdbc-mutex-4x1-turns", "PostgreSQL: one name, 4 clients x 1 thread; a client that"
            + " released asks again once another client has the lock", 4, 1, List.of(baton, shedLock, spring, raw))
            .withTurns());
  }

  private static Contender batonOnRedis() {
    return new Contender("baton-redis", "Baton Mutex on Redis (fencing token included)", Role.BATON,
        new RedisBatonLibrary(RedisMutexOptions.defaults()), Sharing.PER_CLIENT);
  }

  private static Contender redisson() {
    return new Contender("redisson", "Redisson RLock", Role.CURATOR, new RedissonLibrary(), Sharing.PER_THREAD);
  }

  /** The hand-written scheme; {@code releaseWaited} says whether each cycle waits for its release's reply. */
  private static Contender rawRedis(boolean releaseWaited) {
    return releaseWaited
        ? floor("raw-redis-a", "(a) raw: SET NX PX; compare-and-delete waited (no token)", new RawRedisLibrary(true))
        : floor("raw-redis-b", "(b) raw: SET NX PX; compare-and-delete not waited (no token)", new RawRedisLibrary(false));
  }

  /**
   * The libraries {@link JitWarmup} runs: Baton's and Curator's mutexes and the raw floor pattern,
   * and when a Redis row is selected, Baton on Redis, Redisson and the raw Redis scheme too (they
   * had only their scenario's warm-up window, and their first rounds ran at about 0.6 of the
   * later ones, both sides alike).
   */
  private static List<Contender> warmedLibraries(BenchOptions options) {
    List<Contender> warmed = new ArrayList<>(List.of(
        new Contender("baton", "Baton Mutex", Role.BATON, new BatonLibrary(), Sharing.PER_CLIENT),
        new Contender("curator", "Curator InterProcessMutex", Role.CURATOR, new CuratorLibrary(), Sharing.PER_THREAD),
        floor("raw-c", "(c) raw: create+list together; delete not waited", PipelinedPattern.deleteNotWaited())));
    if (redisScenarios().stream().anyMatch(s -> options.selects(s.name()))) {
      warmed.addAll(List.of(batonOnRedis(), redisson(), rawRedis(false)));
    }
    return warmed;
  }

  private static Contender recipe(String id, String label, Role role, Recipe recipe) {
    return role == Role.CURATOR
        ? new Contender(id, label, role, new CuratorLibrary(recipe), Sharing.PER_THREAD)
        : new Contender(id, label, role, new BatonLibrary(recipe), Sharing.PER_CLIENT);
  }

  private static Contender floor(String id, String label, dev.baton.bench.lock.RawPattern pattern) {
    // Each thread runs the pattern on its own call stack: the object holds no per-thread state.
    return floor(id, label, new RawLibrary(pattern));
  }

  private static Contender floor(String id, String label, dev.baton.bench.lock.LockLibrary library) {
    return new Contender(id, label, Role.FLOOR, library, Sharing.PER_CLIENT);
  }

  private static int displayIndex(String name) {
    int i = DISPLAY_ORDER.indexOf(name);
    return i < 0 ? DISPLAY_ORDER.size() : i;
  }

  private static String header(BenchOptions options, double seconds) {
    Runtime rt = Runtime.getRuntime();
    return String.join("\n",
        "Baton vs Apache Curator 5.9.0 on ZooKeeper 3.9.5 - one standalone server in its own JVM (fsync on), loopback;",
        "redis- rows: Baton on Redis vs Redisson 3.52.0 (the peer column) on one redis-server process (persistence off), loopback",
        "jdbc- rows: Baton on PostgreSQL vs ShedLock 6.10.0 JDBC (the peer column) and Spring Integration 6.5.3 JdbcLockRegistry, one embedded PostgreSQL, loopback",
        String.format("%d rounds x %s per contender (warm-up %s; JIT warm-up %s per library first),"
                + " interleaved; run took %.0f s; Java %s, %d cores, max heap %d MiB",
            options.rounds(), BenchOptions.seconds(options.window()), BenchOptions.seconds(options.warmup()),
            BenchOptions.seconds(options.jitWarmup()), seconds,
            System.getProperty("java.version"), rt.availableProcessors(), rt.maxMemory() >> 20),
        "ratio > 1 means Baton is better (Baton/Curator for rates, Curator/Baton for times and request counts);",
        "figures are medians over rounds; ratios are taken within each round: median [min-max].");
  }

  /** {@code bench/} beside the jar (or beside the classes folder when run from an IDE). */
  private static Path defaultOutputFolder() throws URISyntaxException {
    Path code = Path.of(BenchMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    return code.toAbsolutePath().getParent().resolve("bench");
  }
}
