package dev.baton.cli.demo;

import dev.baton.cli.BatonCommand;
import dev.baton.cli.command.CliException;
import dev.baton.cli.command.ConnectOptions;
import dev.baton.cli.command.DurationConverter;
import dev.baton.cli.command.RedisConnectOptions;
import dev.baton.embedded.EmbeddedPostgreSql;
import dev.baton.embedded.EmbeddedRedis;
import dev.baton.embedded.EmbeddedZooKeeper;
import dev.baton.redis.RedisMutexOptions;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code baton demo}: the flash sale, with the lock (nothing oversold) or without (oversold). */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
        "A flash sale that shows the mutex keeping a stock count from being oversold.",
        "",
        "Application nodes, each with its own ZooKeeper session and several buyer threads, sell a stock"
            + " counted in one ZooKeeper node: read it, think, write it back less one. With the mutex"
            + " nothing is oversold, the fencing tokens grow with every sale, and the stock refuses a"
            + " write with an older token. --mode cas sells without a lock: each sale a compare-and-set"
            + " on the stock. With --no-lock the same code oversells. Starts an embedded ZooKeeper"
            + " (fsync on) unless --connect is given.",
        "",
        "--backend redis runs the same sale on Redis: an embedded redis-server unless --redis is given."
            + " --backend postgres runs it on PostgreSQL, the stock a row beside Baton's lock rows: an"
            + " embedded PostgreSQL unless --jdbc is given. --compare runs it on all three, then two"
            + " failure cases (a holder stalled past its lease, on all three; a server failing right"
            + " after the grant), and ends with one table."
    })
public final class DemoCommand implements Callable<Integer> {
  static final int MAX_NODES = 100;
  static final int MAX_BUYERS = 1_000;
  static final int MAX_ITEMS = 10_000_000;
  private static final Duration ACQUIRE_TIMEOUT = Duration.ofSeconds(60);

  @Spec CommandSpec spec;

  @Option(names = "--nodes", defaultValue = "4", paramLabel = "N",
      description = "Application nodes, each a Baton client with its own session. Default: ${DEFAULT-VALUE}.")
  int nodes;

  @Option(names = "--buyers", defaultValue = "4", paramLabel = "N",
      description = "Buyer threads per node. Default: ${DEFAULT-VALUE}.")
  int buyers;

  @Option(names = "--items", defaultValue = "1500", paramLabel = "N",
      description = "Items in stock at the start. Default: ${DEFAULT-VALUE}.")
  int items;

  @Option(names = "--work-us", defaultValue = "300", paramLabel = "MICROS",
      description = "Pause between reading and writing the stock, in microseconds. Default: ${DEFAULT-VALUE}.")
  int workMicros;

  @Option(names = "--mode", paramLabel = "MODE",
      description = "lock (default): each sale under the mutex, the stock checking the fencing token;"
          + " cas: no lock, each sale a compare-and-set on the stock counter, for comparison.")
  String mode;

  @Option(names = "--no-lock",
      description = "Skip the mutex and watch the same code oversell.")
  boolean noLock;

  @Option(names = "--connect", paramLabel = "HOST:PORT[,...]",
      description = "Use this ZooKeeper ensemble instead of starting an embedded server.")
  String connect;

  @Option(names = "--connect-timeout", defaultValue = "15s", paramLabel = "DURATION",
      converter = DurationConverter.class,
      description = "With --connect, --redis or --jdbc: how long to wait for a server to answer. Default: ${DEFAULT-VALUE}.")
  Duration connectTimeout;

  @Option(names = "--backend", paramLabel = "BACKEND",
      description = "zookeeper (default), redis or postgres: where the buyers lock and the stock is kept.")
  String backendName;

  @Option(names = "--jdbc", paramLabel = "URL",
      description = "With --backend postgres: use this database (jdbc:postgresql://host:port/database) instead"
          + " of starting an embedded PostgreSQL. The demo makes Baton's lock table if it is missing, and a"
          + " table baton_demo_stock that it drops at the end.")
  String jdbcUrl;

  @Option(names = "--jdbc-user", paramLabel = "USER", description = "With --jdbc: the database user.")
  String jdbcUser;

  @Option(names = "--jdbc-password", paramLabel = "PASSWORD", defaultValue = "${env:BATON_JDBC_PASSWORD}",
      description = "With --jdbc: the database password (or set BATON_JDBC_PASSWORD).")
  String jdbcPassword;

  @Option(names = "--redis", paramLabel = "URI",
      description = "With --backend redis: use this Redis (redis://host:port, rediss:// for TLS,"
          + " redis-sentinel://host:port#master) instead of starting an embedded redis-server.")
  String redisUri;

  @Option(names = "--compare",
      description = "Run the sale on every backend (embedded servers), then the failure cases, and print"
          + " one table: throughput, p50/p99, overlaps seen, stale writes refused.")
  boolean compare;

  @Override
  public Integer call() {
    validate();
    SaleMode saleMode = saleMode();
    Store store = store();
    FlashSale.Settings settings = new FlashSale.Settings(
        nodes, buyers, items, saleMode, Duration.ofNanos(workMicros * 1_000L), ACQUIRE_TIMEOUT);
    PrintWriter out = spec.commandLine().getOut();
    if (compare) {
      return new BackendComparison(settings, out).run();
    }
    // Ctrl-C stops the buyers, then waits until the sessions, nodes, embedded server and its
    // data folder are gone, which happens in the finally below.
    AtomicReference<FlashSale> running = new AtomicReference<>();
    CountDownLatch cleanedUp = new CountDownLatch(1);
    Thread hook = new Thread(() -> {
      FlashSale sale = running.get();
      if (sale != null) {
        sale.stop();
      }
      awaitQuietly(cleanedUp);
    }, "baton-demo-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    AutoCloseable embedded = null;
    try {
      DemoBackend backend;
      String where;
      if (store == Store.POSTGRES) {
        String url = jdbcUrl;
        if (url == null) {
          EmbeddedPostgreSql pg = EmbeddedPostgreSql.start();
          embedded = pg;
          url = pg.url("postgres");
        }
        DemoBackend.Postgres postgres = new DemoBackend.Postgres(url, jdbcUser, jdbcPassword, connectTimeout);
        backend = postgres;
        where = embedded == null ? "PostgreSQL: " + postgres.address()
            : "PostgreSQL: embedded at " + postgres.address() + " (its files deleted at the end)";
      } else if (store == Store.REDIS) {
        String uri = redisUri;
        if (uri == null) {
          EmbeddedRedis redis = EmbeddedRedis.start();
          embedded = redis;
          uri = redis.uri();
        }
        backend = new DemoBackend.Redis(uri, connectTimeout, RedisMutexOptions.defaults());
        where = embedded == null ? "Redis: " + uri
            : "Redis: embedded redis-server at " + uri + " (" + EmbeddedRedis.binary()
                + ", persistence off, stopped at the end)";
      } else {
        String connectString = connect;
        if (connectString == null) {
          EmbeddedZooKeeper zk = EmbeddedZooKeeper.builder().start();
          embedded = zk;
          connectString = zk.connectString();
          where = "ZooKeeper: embedded at " + connectString + " (fsync on, data in " + zk.dataDir()
              + ", deleted at the end)";
        } else {
          where = "ZooKeeper: " + connectString;
        }
        backend = new DemoBackend.ZooKeeper(connectString, connectTimeout);
      }
      FlashSale sale = new FlashSale(settings, backend);
      running.set(sale);
      printHeader(out, sale, saleMode, where);
      FlashSaleResult result;
      try (ProgressBar bar = progressBar(sale, saleMode, out)) {
        result = sale.run();
      }
      DemoReport.print(result, out);
      List<String> problems = result.problems();
      if (!problems.isEmpty()) {
        throw new CliException("The " + (saleMode == SaleMode.CAS ? "compare-and-set" : "lock")
            + " did not hold its promise: " + String.join("; ", problems));
      }
      return BatonCommand.OK;
    } finally {
      closeQuietly(embedded);
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // Ctrl-C: the hook is running and waits for the latch.
      }
      cleanedUp.countDown();
    }
  }

  private void validate() {
    inRange("--nodes", nodes, 1, MAX_NODES);
    inRange("--buyers", buyers, 1, MAX_BUYERS);
    inRange("--items", items, 1, MAX_ITEMS);
    inRange("--work-us", workMicros, 0, 1_000_000);
    if (connect != null) {
      ConnectOptions.checkConnectString(connect, spec);
    }
    if (redisUri != null) {
      if (RedisConnectOptions.isCluster(redisUri)) {
        // The demo keeps its stock with a plain client of one server; locks alone could run on a cluster.
        throw new ParameterException(spec.commandLine(), "--redis: the demo runs on one Redis server or a"
            + " Sentinel-watched master, not on a cluster (was '" + redisUri + "')");
      }
      RedisConnectOptions.checkUri(redisUri, "--redis", spec);
    }
    if (jdbcUrl != null && !jdbcUrl.startsWith("jdbc:postgresql:")) {
      throw new ParameterException(spec.commandLine(), "--jdbc must be a PostgreSQL JDBC URL such as"
          + " jdbc:postgresql://127.0.0.1:5432/app, was '" + DemoBackend.Postgres.redact(jdbcUrl) + "'");
    }
    if (jdbcUrl == null && jdbcUser != null) {
      throw new ParameterException(spec.commandLine(), "--jdbc-user needs --jdbc URL");
    }
    ConnectOptions.checkConnectTimeout(connectTimeout, spec);
  }

  /** Where the sale runs. */
  enum Store { ZOOKEEPER, REDIS, POSTGRES }

  /** {@code --backend}, {@code --redis}, {@code --jdbc}, {@code --connect} and {@code --compare} as one choice. */
  private Store store() {
    String asked = backendName == null ? null : backendName.toLowerCase(java.util.Locale.ROOT);
    if (asked != null && !asked.equals("zookeeper") && !asked.equals("redis") && !asked.equals("postgres")) {
      throw new ParameterException(spec.commandLine(),
          "--backend must be zookeeper, redis or postgres, was '" + backendName + "'");
    }
    if (compare) {
      if (asked != null || connect != null || redisUri != null || jdbcUrl != null) {
        throw new ParameterException(spec.commandLine(), "--compare runs on embedded servers of every"
            + " kind: it takes none of --backend, --connect, --redis, --jdbc");
      }
      if (mode != null || noLock) {
        throw new ParameterException(spec.commandLine(),
            "--compare compares the locks: it takes neither --mode nor --no-lock");
      }
      return Store.ZOOKEEPER;
    }
    Store store;
    if (asked != null) {
      store = Store.valueOf(asked.toUpperCase(java.util.Locale.ROOT));
    } else if (redisUri != null && jdbcUrl == null) {
      store = Store.REDIS;
    } else if (jdbcUrl != null && redisUri == null) {
      store = Store.POSTGRES;
    } else {
      store = Store.ZOOKEEPER;
    }
    if (store != Store.ZOOKEEPER && connect != null) {
      throw new ParameterException(spec.commandLine(), "--connect names a ZooKeeper ensemble; with --backend "
          + asked(store) + " use " + (store == Store.REDIS ? "--redis URI" : "--jdbc URL"));
    }
    if (store != Store.REDIS && redisUri != null) {
      throw new ParameterException(spec.commandLine(), "--redis needs --backend redis (or no --backend)");
    }
    if (store != Store.POSTGRES && jdbcUrl != null) {
      throw new ParameterException(spec.commandLine(), "--jdbc needs --backend postgres (or no --backend)");
    }
    if (store != Store.ZOOKEEPER && SaleMode.CAS.option().equalsIgnoreCase(String.valueOf(mode))) {
      throw new ParameterException(spec.commandLine(),
          "--mode cas runs on ZooKeeper only (Baton's counter is a ZooKeeper recipe); use --backend zookeeper");
    }
    return store;
  }

  private static String asked(Store store) {
    return store.name().toLowerCase(java.util.Locale.ROOT);
  }

  private static void closeQuietly(AutoCloseable closeable) {
    if (closeable == null) {
      return;
    }
    try {
      closeable.close();
    } catch (Exception e) {
      // The embedded server is going away with the demo; nothing to tell the user.
    }
  }

  /** {@code --mode} and {@code --no-lock} as one choice. */
  private SaleMode saleMode() {
    if (noLock) {
      if (mode != null) {
        throw new ParameterException(spec.commandLine(),
            "--no-lock and --mode cannot be combined: --no-lock is a mode of its own (neither lock nor compare-and-set)");
      }
      return SaleMode.NO_LOCK;
    }
    String asked = mode == null ? SaleMode.LOCK.option() : mode.toLowerCase(java.util.Locale.ROOT);
    if (asked.equals(SaleMode.LOCK.option())) {
      return SaleMode.LOCK;
    }
    if (asked.equals(SaleMode.CAS.option())) {
      return SaleMode.CAS;
    }
    throw new ParameterException(spec.commandLine(), "--mode must be lock or cas, was '" + mode + "'");
  }

  private void inRange(String option, int value, int min, int max) {
    if (value < min || value > max) {
      String rule = min == 1 ? "a positive number" : "zero or a positive number";
      throw new ParameterException(spec.commandLine(), String.format(
          "%s must be %s no larger than %,d, was %d", option, rule, max, value));
    }
  }

  private void printHeader(PrintWriter out, FlashSale sale, SaleMode saleMode, String where) {
    String guard = switch (saleMode) {
      case LOCK -> "guarded by the mutex " + sale.lockPath();
      case CAS -> "no lock: compare-and-set on the counter " + sale.stockPath() + " (--mode cas)";
      case NO_LOCK -> "NO LOCK (--no-lock)";
    };
    out.printf("Flash sale: %s items, %d nodes x %d buyers, %s%n", DemoReport.number(items), nodes,
        buyers, guard);
    out.println(where);
    if (saleMode == SaleMode.LOCK) {
      out.println(sale.backend().watchHint(sale.lockPath()));
    }
    out.flush();
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(15, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** A bar on a terminal; none (null, which try-with-resources skips) when output goes to a file or pipe. */
  private ProgressBar progressBar(FlashSale sale, SaleMode saleMode, PrintWriter out) {
    if (System.console() == null) {
      return null;
    }
    return saleMode != SaleMode.LOCK
        ? ProgressBar.start(out, items, sale::soldSoFar, sale::soldSoFar, "sales/s")
        : ProgressBar.start(out, items, sale::soldSoFar, sale::acquisitionsSoFar, "locks/s");
  }
}
