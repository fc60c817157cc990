package dev.baton.cli.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.cli.BatonCommand;
import dev.baton.embedded.EmbeddedPostgreSql;
import dev.baton.jdbc.JdbcBaton;
import dev.baton.leader.LeaderLatch;
import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code baton lock hold|holder|waiters}, {@code leader}, {@code election join} and {@code tree} with
 * {@code --jdbc}: the same commands on the rows of a real PostgreSQL's lock table.
 */
class JdbcCommandsTest {
  private static EmbeddedPostgreSql postgres;
  private static String url;
  private static JdbcBaton client;

  @BeforeAll
  static void start() {
    postgres = EmbeddedPostgreSql.start();
    url = postgres.url(postgres.newDatabase());
    client = JdbcBaton.builder().url(url).createSchema(true).build();
  }

  @AfterAll
  static void stop() {
    client.close();
    postgres.close();
  }

  @Test
  void hold_runsTheCommandWithTheTokenWhileHoldingTheRow_andReleases(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("seen");
    Mutex mutex = client.mutex("jobs/nightly");
    Cli.Run run = Cli.run("lock", "hold", "jobs/nightly", "--jdbc", url, "--",
        "sh", "-c", "echo \"$BATON_FENCING_TOKEN $BATON_LOCK_PATH\" > '" + file + "'");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(Files.readString(file)).matches("[1-9]\\d* jobs/nightly\\n");
    assertThat(mutex.holder()).as("released when the command ended").isEmpty();
    try (Lease next = mutex.acquire(Duration.ofSeconds(5))) {
      long tokenSeen = Long.parseLong(Files.readString(file).split(" ")[0]);
      assertThat(next.fencingToken()).as("the next holder's token is larger").isGreaterThan(tokenSeen);
    }
  }

  @Test
  void hold_whileAnotherHolds_givesUpAfterTheTimeout_namingTheHolder() {
    try (Lease held = client.mutex("jobs/busy").acquire(Duration.ofSeconds(5))) {
      Cli.Run run = Cli.run("lock", "hold", "jobs/busy", "--jdbc", url, "--timeout", "0s", "--", "true");

      assertThat(run.exitCode()).isEqualTo(LockHoldCommand.EXIT_NOT_OBTAINED);
      assertThat(run.err()).contains("Did not get jobs/busy", "held by:", "token=" + held.fencingToken(),
          "pid=" + ProcessHandle.current().pid());
    }
  }

  @Test
  void holder_namesTheRowsHolder_thenFree() throws IOException {
    Lease held = client.mutex("/locks/sku-42").acquire(Duration.ofSeconds(5));
    Cli.Run run = Cli.run("lock", "holder", "/locks/sku-42", "--jdbc", url);
    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("token=" + held.fencingToken(), "pid=" + ProcessHandle.current().pid());

    Cli.Run json = Cli.run("lock", "holder", "/locks/sku-42", "--jdbc", url, "--json");
    JsonNode document = new ObjectMapper().readTree(json.out());
    assertThat(document.get("backend").asText()).isEqualTo("postgresql");
    assertThat(document.get("holder").get("token").asLong()).isEqualTo(held.fencingToken());

    held.close();
    Cli.Run free = Cli.run("lock", "holder", "/locks/sku-42", "--jdbc", url);
    assertThat(free.exitCode()).as(free.err()).isZero();
    assertThat(free.out()).contains("/locks/sku-42 is free");
  }

  @Test
  void waiters_onSql_saysTheTableKeepsNoQueue_ratherThanNobody() {
    Cli.Run run = Cli.run("lock", "waiters", "jobs/any", "--jdbc", url);
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("keeps no queue").doesNotContain("\tat ");
    assertThat(run.out()).isEmpty();
  }

  @Test
  void badUsage_namesTheOption_beforeConnecting() {
    Cli.Run both = Cli.run("lock", "holder", "x", "--jdbc", url, "--redis", "redis://127.0.0.1:1");
    assertThat(both.exitCode()).isEqualTo(2);
    assertThat(both.err()).contains("--redis and --jdbc cannot be combined");

    Cli.Run notJdbc = Cli.run("lock", "holder", "x", "--jdbc", "postgres://secret@db/app");
    assertThat(notJdbc.exitCode()).isEqualTo(2);
    assertThat(notJdbc.err()).contains("--jdbc must be a JDBC URL").doesNotContain("secret");
  }

  @Test
  void noDatabase_isOneLineNamingIt() {
    Cli.Run run = Cli.run("lock", "holder", "x", "--jdbc", "jdbc:postgresql://127.0.0.1:1/app?password=hush",
        "--connect-timeout", "2s");
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("127.0.0.1:1").doesNotContain("hush").doesNotContain("\tat ");
  }

  @Test
  void leaderAndElectionJoin_onSql(@TempDir Path dir) throws Exception {
    try (LeaderLatch first = client.leaderLatch("election/reports", "reports-1")) {
      first.start();
      assertThat(first.await(Duration.ofSeconds(10))).isTrue();

      Cli.Run leader = Cli.run("leader", "election/reports", "--jdbc", url);
      assertThat(leader.exitCode()).as(leader.err()).isZero();
      assertThat(leader.out()).startsWith("reports-1 leads election/reports (election, 1 participant)");
      assertThat(leader.err()).as("what SQL cannot tell is said").contains("keeps no queue");

      Cli.Run notLeader = Cli.run("election", "join", "election/reports", "--id", "reports-2", "--jdbc", url,
          "--timeout", "1s", "--", "true");
      assertThat(notLeader.exitCode()).as(notLeader.err()).isEqualTo(LockHoldCommand.EXIT_NOT_OBTAINED);
      assertThat(notLeader.err()).contains("leader: reports-1");
    }
    Path seen = dir.resolve("seen");
    Cli.Run join = Cli.run("election", "join", "election/reports", "--id", "reports-2", "--jdbc", url,
        "--timeout", "10s", "--", "sh", "-c", "echo \"$BATON_FENCING_TOKEN $BATON_ELECTION_PATH\" > '" + seen + "'");
    assertThat(join.exitCode()).as(join.err()).isZero();
    assertThat(Files.readString(seen)).matches("[1-9]\\d* election/reports\\n");

    Cli.Run nobody = Cli.run("leader", "election/reports", "--jdbc", url);
    assertThat(nobody.out().strip()).isEqualTo("nobody leads election/reports: it has no participants");
  }

  @Test
  void tree_listsTheLockRows_withTheirHolders() throws IOException {
    client.mutex("tree/released").acquire(Duration.ofSeconds(5)).close();
    try (Lease held = client.mutex("tree/held").acquire(Duration.ofSeconds(5))) {
      Cli.Run run = Cli.run("tree", "tree/*", "--jdbc", url);
      assertThat(run.exitCode()).as(run.err()).isZero();
      assertThat(run.out()).startsWith("[mutex] rows of baton_lock");
      assertThat(run.out().lines())
          .anyMatch(l -> l.contains("tree/held") && l.contains("held by") && l.contains("token " + held.fencingToken()))
          .anyMatch(l -> l.contains("tree/released") && l.contains("free (last token"))
          .noneMatch(l -> l.contains("jobs/"));

      Cli.Run json = Cli.run("tree", "tree/held", "--jdbc", url, "--json");
      JsonNode document = new ObjectMapper().readTree(json.out());
      assertThat(document.get("backend").asText()).isEqualTo("postgresql");
      assertThat(document.get("locks")).hasSize(1);
      assertThat(document.get("locks").get(0).get("name").asText()).isEqualTo("tree/held");
    }
  }

  /**
   * Killed with SIGKILL, no hook runs and the row outlives baton for its TTL (30 s): the watchdog
   * must kill the command's whole group long before.
   */
  @Test
  @EnabledOnOs(OS.LINUX)
  void holdKilledWithSigkill_theWatchdogKillsTheCommandWhileTheRowStillNamesIt(@TempDir Path dir) throws Exception {
    Path pids = dir.resolve("pids");
    String first = "sleep 300 & echo \"$$ $!\" > '" + pids + ".tmp'; mv '" + pids + ".tmp' '" + pids + "'; wait";
    Process baton = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), BatonCommand.class.getName(),
        "lock", "hold", "jobs/killed", "--jdbc", url, "--", "sh", "-c", first)
        .redirectErrorStream(true).redirectOutput(dir.resolve("log").toFile()).start();
    List<Long> tree = new ArrayList<>();
    try {
      await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(pids));
      for (String pid : Files.readString(pids).trim().split(" ")) {
        tree.add(Long.parseLong(pid));
      }
      assertThat(tree).hasSize(2).allMatch(JdbcCommandsTest::alive);

      baton.destroyForcibly();
      baton.waitFor(30, TimeUnit.SECONDS);

      await().atMost(Duration.ofSeconds(10)).until(() -> tree.stream().noneMatch(JdbcCommandsTest::alive));
      assertThat(client.mutex("jobs/killed").holder()).as("the row outlives baton: only the watchdog stopped the command")
          .isPresent();
    } finally {
      baton.destroyForcibly();
      tree.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
    }
  }

  private static boolean alive(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      return !stat.substring(stat.lastIndexOf(')') + 1).trim().startsWith("Z");
    } catch (NoSuchFileException gone) {
      return false;
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
