package dev.baton.cli;

import dev.baton.embedded.EmbeddedZooKeeper;
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
        "Application nodes, each with its own ZooKeeper session and several buyer threads,",
        "sell a stock counted in one ZooKeeper node: read it, think, write it back less one.",
        "With the mutex nothing is oversold and the fencing tokens grow with every sale;",
        "with --no-lock the same code oversells.",
        "Starts an embedded ZooKeeper (fsync on) unless --connect is given."
    })
final class DemoCommand implements Callable<Integer> {
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

  @Option(names = "--no-lock",
      description = "Skip the mutex and watch the same code oversell.")
  boolean noLock;

  @Option(names = "--connect", paramLabel = "HOST:PORT[,...]",
      description = "Use this ZooKeeper ensemble instead of starting an embedded server.")
  String connect;

  @Override
  public Integer call() {
    validate();
    FlashSale.Settings settings = new FlashSale.Settings(
        nodes, buyers, items, !noLock, Duration.ofNanos(workMicros * 1_000L), ACQUIRE_TIMEOUT);
    PrintWriter out = spec.commandLine().getOut();
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
    EmbeddedZooKeeper embedded = null;
    try {
      String connectString = connect;
      if (connectString == null) {
        embedded = EmbeddedZooKeeper.builder().start();
        connectString = embedded.connectString();
      }
      FlashSale sale = new FlashSale(settings, connectString);
      running.set(sale);
      printHeader(out, sale, connectString, embedded);
      FlashSaleResult result;
      try (ProgressBar bar = progressBar(sale, out)) {
        result = sale.run();
      }
      DemoReport.print(result, out);
      List<String> problems = result.problems();
      if (!problems.isEmpty()) {
        throw new CliException("The lock did not hold its promise: " + String.join("; ", problems));
      }
      return BatonCommand.OK;
    } finally {
      if (embedded != null) {
        embedded.close();
      }
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
  }

  private void inRange(String option, int value, int min, int max) {
    if (value < min || value > max) {
      String rule = min == 1 ? "a positive number" : "zero or a positive number";
      throw new ParameterException(spec.commandLine(), String.format(
          "%s must be %s no larger than %,d, was %d", option, rule, max, value));
    }
  }

  private void printHeader(PrintWriter out, FlashSale sale, String connectString, EmbeddedZooKeeper embedded) {
    out.printf("Flash sale: %s items, %d nodes x %d buyers, %s%n", DemoReport.number(items), nodes,
        buyers, noLock ? "NO LOCK (--no-lock)" : "guarded by the mutex " + sale.lockPath());
    if (embedded != null) {
      out.println("ZooKeeper: embedded at " + connectString + " (fsync on, data in "
          + embedded.dataDir() + ", deleted at the end)");
    } else {
      out.println("ZooKeeper: " + connectString);
    }
    if (!noLock) {
      out.println("Watch the queue meanwhile: baton lock waiters " + sale.lockPath()
          + " --connect " + connectString);
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
  private ProgressBar progressBar(FlashSale sale, PrintWriter out) {
    if (System.console() == null) {
      return null;
    }
    return noLock
        ? ProgressBar.start(out, items, sale::soldSoFar, sale::soldSoFar, "sales/s")
        : ProgressBar.start(out, items, sale::soldSoFar, sale::acquisitionsSoFar, "locks/s");
  }
}
