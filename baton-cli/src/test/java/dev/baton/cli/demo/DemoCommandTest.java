package dev.baton.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.cli.command.Cli;
import dev.baton.cli.command.StandaloneZooKeeper;
import dev.baton.testkit.TestCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DemoCommandTest {

  @Test
  void sellsEverythingOnceAgainstAnEmbeddedServerAndCleansUp() {
    Cli.Run run = Cli.run("demo", "--nodes", "2", "--buyers", "2", "--items", "200");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .containsPattern("items\\s+200\\n")
        .containsPattern("sold\\s+200\\n")
        .containsPattern("oversold\\s+0\\n")
        .containsPattern("lock acquisitions\\s+204\\n")
        .containsPattern("acquisitions per second\\s+[\\d,]+\\n")
        .containsPattern("acquire latency p50\\s+[\\d.]+ ms\\n")
        .containsPattern("acquire latency p99\\s+[\\d.]+ ms\\n")
        .containsPattern("node-1\\s+[\\d,]+\\s+[\\d.]+%")
        .containsPattern("node-2\\s+[\\d,]+\\s+[\\d.]+%")
        .contains("fencing tokens: strictly increasing")
        .contains("stale writes rejected by the stock's fence: 0")
        .contains("OK: every item sold exactly once");
    assertThat(run.err()).isEmpty();
    Matcher data = Pattern.compile("data in (\\S+),").matcher(run.out());
    assertThat(data.find()).as("the header names the data folder").isTrue();
    assertThat(Path.of(data.group(1))).doesNotExist();
  }

  @Test
  void withoutTheLockItRunsAndReports() {
    try (TestCluster cluster = StandaloneZooKeeper.startServer()) {
      Cli.Run run = Cli.run("demo", "--no-lock", "--nodes", "2", "--buyers", "2", "--items", "100",
          "--connect", cluster.connectString());

      assertThat(run.exitCode()).as(run.err()).isZero();
      assertThat(run.out())
          .contains("NO LOCK")
          .containsPattern("sold\\s+[\\d,]+\\n")
          .containsPattern("oversold\\s+[\\d,]+\\n")
          .contains("none (--no-lock)")
          .contains("fencing tokens: none (--no-lock)");
      try (StockClient zk = StockClient.connect(cluster.connectString(), Duration.ofSeconds(10))) {
        assertThat(zk.exists(FlashSale.ROOT)).isFalse();
      }
    }
  }

  @Test
  void casModeSellsEverythingOnceWithoutALockAndReportsConflicts() {
    try (TestCluster cluster = StandaloneZooKeeper.startServer()) {
      Cli.Run run = Cli.run("demo", "--mode", "cas", "--nodes", "2", "--buyers", "2", "--items", "200",
          "--connect", cluster.connectString());

      assertThat(run.exitCode()).as(run.err()).isZero();
      assertThat(run.out())
          .contains("no lock: compare-and-set on the counter")
          .containsPattern("sold\\s+200\\n")
          .containsPattern("oversold\\s+0\\n")
          .containsPattern("left in stock\\s+0\\n")
          .containsPattern("lock acquisitions\\s+none \\(--mode cas\\)\\n")
          .containsPattern("CAS conflicts \\(retries\\)\\s+[\\d,]+\\n")
          .containsPattern("sales per second\\s+[\\d,]+\\n")
          .containsPattern("sale latency p99\\s+[\\d.]+ ms\\n")
          .contains("OK: every item sold exactly once without a lock")
          .doesNotContain("baton lock waiters");
      assertThat(run.err()).isEmpty();
      try (StockClient zk = StockClient.connect(cluster.connectString(), Duration.ofSeconds(10))) {
        assertThat(zk.exists(FlashSale.ROOT)).isFalse();
      }
    }
  }

  @Test
  void noLockWithModeIsBadUsage() {
    Cli.Run run = Cli.run("demo", "--no-lock", "--mode", "cas");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--no-lock and --mode cannot be combined");
    assertThat(run.out()).isEmpty();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "--mode|optimistic|--mode must be lock or cas, was 'optimistic'",
      "--nodes|0|--nodes must be a positive number",
      "--buyers|-3|--buyers must be a positive number",
      "--items|0|--items must be a positive number",
      "--items|many|Invalid value for option '--items': 'many'",
      "--nodes|101|--nodes must be a positive number no larger than 100",
      "--work-us|-1|--work-us must be zero or a positive number",
      "--connect|zk1:2181/apps|--connect must be host:port",
      "--connect|zk1:21x81|--connect must be host:port",
  })
  void badOptionsAreBadUsageNamingTheOption(String option, String value, String message) {
    Cli.Run run = Cli.run("demo", option, value);

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err().lines().findFirst()).hasValueSatisfying(line -> assertThat(line)
        .startsWith("baton demo: ").contains(message));
    assertThat(run.out()).isEmpty();
  }

  @Test
  void verboseAddsTheStackTrace() {
    Cli.Run run = Cli.run("demo", "--nodes", "0", "--verbose");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("ParameterException", "\tat ");
  }

  @Test
  void helpDescribesTheDemo() {
    Cli.Run run = Cli.run("demo", "--help");
    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).contains("--mode", "--no-lock", "--nodes", "--buyers", "--items", "--connect");
  }
}
