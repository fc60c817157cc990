package dev.baton.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class ChaosCommandTest {

  @Test
  void parse_readsEveryOption_andExpandsAll() {
    ChaosCommand.Options options = ChaosCommand.parse(
        new String[] {"--backend", "all", "--duration", "90s", "--seed", "42", "--report", "x/r.md"});
    assertEquals(List.of("zookeeper", "redis", "postgresql"), options.backends());
    assertEquals(Duration.ofSeconds(90), options.duration());
    assertEquals(42L, options.seed());
    assertEquals(Path.of("x/r.md"), options.report());
  }

  @Test
  void parse_defaults_andNamesTheReportAfterBackendsAndSeed() {
    ChaosCommand.Options options = ChaosCommand.parse(new String[] {"--backend", "redis,zookeeper"});
    assertEquals(List.of("redis", "zookeeper"), options.backends());
    assertEquals(Duration.ofSeconds(60), options.duration());
    assertEquals(ChaosCommand.DEFAULT_SEED, options.seed());
    assertEquals(Path.of("chaos-redis-zookeeper-" + ChaosCommand.DEFAULT_SEED + ".md"), options.report());
  }

  @Test
  void parse_takesTheRedisVariants_whichAllLeavesOut() {
    ChaosCommand.Options options = ChaosCommand.parse(
        new String[] {"--backend", "redis-aof,redis-failover,redis-cluster-failover"});
    assertEquals(List.of("redis-aof", "redis-failover", "redis-cluster-failover"), options.backends());
    assertEquals("redis-failover", ChaosBackend.named("redis-failover").name());
    assertTrue(ChaosBackend.named("redis-failover").fixture().canFailOver());
    assertTrue(ChaosBackend.named("redis-cluster-failover").fixture().canFailOver());
    assertTrue(ChaosBackend.named("redis-aof").fixture().features().contains(
        dev.baton.testkit.contract.Feature.COUNTER));
  }

  @Test
  void parse_refusesAnUnknownBackend_aMissingValue_andNoBackend() {
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> ChaosCommand.parse(new String[] {"--backend", "mysql"})).getMessage().contains("mysql"));
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> ChaosCommand.parse(new String[] {"--backend", "redis", "--seed"})).getMessage().contains("--seed"));
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> ChaosCommand.parse(new String[] {"--duration", "5s"})).getMessage().contains("--backend"));
  }

  @Test
  void badArguments_exit64_withTheUsage() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status = ChaosCommand.run(new String[] {"--backend", "mysql"}, new PrintStream(new ByteArrayOutputStream()),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    assertEquals(64, status);
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("usage: baton-bench chaos"));
  }

  /**
   * End to end, briefly: two backends' embedded servers, the shared run, one report with a table
   * each. ZooKeeper's run is {@link ChaosCommandZooKeeperTest}'s, a class of its own so that the
   * build's two test JVMs run the two at once: each run lasts at least the faults' first round (every
   * kind once), whatever the duration asked.
   */
  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void twoBackends_shortRun_writeOneTableEach_withTheSeedAndTheSchedule(@TempDir Path folder) throws Exception {
    String text = runAndRead(folder, "redis", "postgresql");
    assertTrue(text.contains("| read-write lock |") && text.contains("| semaphore of 2 |"), text);
  }

  /**
   * Runs the command on {@code backends} for 3 s with seed 42, checks that it succeeded and wrote a
   * table for each, with the seed and the fault schedule, and returns the report.
   */
  static String runAndRead(Path folder, String... backends) throws Exception {
    Path report = folder.resolve("chaos.md");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status = ChaosCommand.run(new String[] {"--backend", String.join(",", backends), "--duration", "3s", "--seed",
        "42", "--report", report.toString()}, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    String text = Files.readString(report);
    assertEquals(0, status, err.toString(StandardCharsets.UTF_8) + "\n" + text);
    assertTrue(out.toString(StandardCharsets.UTF_8).contains("Wrote " + report.toAbsolutePath()));
    for (String backend : backends) {
      assertTrue(text.contains("### " + backend + "\n"), backend + " has a table:\n" + text);
    }
    assertEquals(backends.length, text.split("\\| workload \\| measure \\| value \\| must be \\|", -1).length - 1,
        text);
    assertEquals(backends.length, text.split("Seed 42, 3 s of faults:", -1).length - 1, text);
    assertTrue(text.contains("Fault schedule ("), text);
    return text;
  }
}
