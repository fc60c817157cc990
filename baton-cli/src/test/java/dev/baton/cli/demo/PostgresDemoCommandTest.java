package dev.baton.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.cli.BatonCommand;
import dev.baton.cli.command.Cli;
import dev.baton.cli.command.CliException;
import dev.baton.embedded.EmbeddedPostgreSql;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code baton demo --backend postgres}: the flash sale on a real PostgreSQL, embedded or given. */
class PostgresDemoCommandTest {

  @Test
  void postgresBackend_onAnEmbeddedServer_sellsEverythingOnce_withGrowingTokens_andStopsTheServer() {
    Cli.Run run = Cli.run("demo", "--backend", "postgres", "--nodes", "2", "--buyers", "2", "--items", "120");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .contains("PostgreSQL: embedded at jdbc:postgresql://127.0.0.1:")
        .contains("SELECT owner, token, expires_at FROM baton_lock WHERE name = 'baton-demo/")
        .containsPattern("items\\s+120\\n")
        .containsPattern("sold\\s+120\\n")
        .containsPattern("oversold\\s+0\\n")
        .containsPattern("left in stock\\s+0\\n")
        .containsPattern("lock acquisitions\\s+124\\n")
        .containsPattern("acquire latency p99\\s+[\\d.]+ ms\\n")
        .containsPattern("node-2\\s+[\\d,]+\\s+[\\d.]+%")
        .contains("fencing tokens: strictly increasing")
        .contains("stale writes rejected by the stock's fence: 0")
        .contains("OK: every item sold exactly once");
    assertThat(run.err()).isEmpty();
    Matcher port = Pattern.compile("embedded at jdbc:postgresql://127\\.0\\.0\\.1:(\\d+)/").matcher(run.out());
    assertThat(port.find()).isTrue();
    assertThat(listening(Integer.parseInt(port.group(1)))).as("the embedded server is stopped").isFalse();
  }

  @Test
  void postgresBackend_onAGivenDatabase_leavesNoRowNorTableBehind() throws SQLException {
    EmbeddedPostgreSql pg = EmbeddedPostgreSql.shared();
    String db = pg.newDatabase();
    pg.run(db, "CREATE TABLE other_app (id INT)");

    Cli.Run run = Cli.run("demo", "--jdbc", pg.url(db), "--nodes", "3", "--buyers", "2", "--items", "90");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("PostgreSQL: jdbc:postgresql://127.0.0.1:" + pg.port() + "/" + db + "\n")
        .doesNotContain("user=postgres")
        .containsPattern("sold\\s+90\\n")
        .contains("OK: every item sold exactly once");
    try (Connection c = pg.dataSource(db).getConnection(); Statement s = c.createStatement()) {
      assertThat(one(s, "SELECT to_regclass('baton_demo_stock') IS NULL")).as("the stock table is dropped").isTrue();
      assertThat(one(s, "SELECT NOT EXISTS (SELECT 1 FROM baton_lock WHERE name LIKE 'baton-demo/%')"))
          .as("the run's lock rows are deleted").isTrue();
      assertThat(one(s, "SELECT to_regclass('other_app') IS NOT NULL")).as("nothing else is touched").isTrue();
    }
  }

  @Test
  void postgresBackend_withoutTheLock_runsAndReports() {
    EmbeddedPostgreSql pg = EmbeddedPostgreSql.shared();
    Cli.Run run = Cli.run("demo", "--backend", "postgres", "--jdbc", pg.url(pg.newDatabase()), "--no-lock",
        "--nodes", "2", "--buyers", "2", "--items", "60");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("NO LOCK").containsPattern("oversold\\s+[\\d,]+\\n")
        .contains("fencing tokens: none (--no-lock)")
        .doesNotContain("baton_lock");
  }

  /**
   * The stalled holder of --compare on PostgreSQL alone: A's row expires by the database's clock
   * while A is silenced, B is granted the lock with a higher token, and A's late UPDATE is refused
   * by the token check; A and B never both held a live lease.
   */
  @Test
  void stalledHolder_onPostgres_hasItsLateWriteRefusedByTheFence() {
    try (EmbeddedPostgreSql pg = EmbeddedPostgreSql.start()) {
      ComparisonRow row = BackendComparison.stalledOnPostgres(pg);

      assertThat(row.backend()).startsWith("PostgreSQL");
      assertThat(row.overlaps()).isZero();
      assertThat(row.staleRefused()).isEqualTo(1);
      assertThat(row.note()).contains("A's late write refused by the fence").endsWith("stock 9");
    }
  }

  /** The fence in the stock's own UPDATE: an older token is refused and changes nothing. */
  @Test
  void theStock_refusesAWriteWithAnOlderToken() {
    EmbeddedPostgreSql pg = EmbeddedPostgreSql.shared();
    try (PostgresStock stock = PostgresStock.connect(pg.url(pg.newDatabase()), null, null, Duration.ofSeconds(10), 2)) {
      stock.create("s/stock", 10);
      StockStore.Stock seen = stock.readStock("s/stock");
      assertThat(stock.writeFenced("s/stock", 9, 7, seen)).isTrue();
      assertThat(stock.writeFenced("s/stock", 8, 7, seen)).as("the same holder again").isTrue();
      assertThat(stock.writeFenced("s/stock", 9, 6, seen)).as("an older token").isFalse();
      assertThat(stock.readStock("s/stock")).isEqualTo(new StockStore.Stock(8, 7, 0));
      stock.deleteTree("s");
      assertThat(stock.tableExists()).isFalse();
    }
  }

  @Test
  void anUnreachableDatabase_failsNamingIt_withoutItsPassword() throws IOException {
    int port;
    try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    Cli.Run run = Cli.run("demo", "--jdbc", "jdbc:postgresql://127.0.0.1:" + port + "/app?password=hunter2",
        "--connect-timeout", "2s", "--items", "5");

    assertThat(run.exitCode()).isEqualTo(BatonCommand.FAILURE);
    assertThat(run.err()).contains("jdbc:postgresql://127.0.0.1:" + port + "/app").doesNotContain("hunter2");
    assertThatThrownBy(() -> PostgresStock.connect("jdbc:postgresql://127.0.0.1:" + port + "/app", null, null,
        Duration.ofMillis(500), 1)).isInstanceOf(CliException.class);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "--backend postgres --jdbc jdbc:mysql://db/app|--jdbc must be a PostgreSQL JDBC URL",
      "--backend redis --jdbc jdbc:postgresql://db/app|--jdbc needs --backend postgres",
      "--backend postgres --connect 127.0.0.1:2181|--connect names a ZooKeeper ensemble; with --backend postgres use --jdbc URL",
      "--backend postgres --mode cas|--mode cas runs on ZooKeeper only",
      "--compare --jdbc jdbc:postgresql://db/app|--compare runs on embedded servers of every kind",
      "--jdbc-user app|--jdbc-user needs --jdbc URL",
      "--backend etcd|--backend must be zookeeper, redis or postgres, was 'etcd'",
  })
  void badPostgresOptions_areBadUsage_namingTheOption(String args, String message) {
    List<String> line = new ArrayList<>(List.of("demo"));
    line.addAll(List.of(args.split(" ")));
    Cli.Run run = Cli.run(line.toArray(String[]::new));

    assertThat(run.exitCode()).isEqualTo(BatonCommand.USAGE);
    assertThat(run.err()).startsWith("baton demo: ").contains(message);
    assertThat(run.out()).isEmpty();
  }

  /**
   * As the real command runs (its own JVM and main): no library log line (HikariCP's pool, the
   * embedded server's) amid the report, and the embedded server's data folder gone at the end.
   */
  @Test
  void asARealProcess_theReportHasNoLibraryLines_andTheServersFilesAreDeleted(@TempDir Path dir) throws Exception {
    Path home = Files.createDirectories(dir.resolve("home"));
    Path tmp = Files.createDirectories(dir.resolve("tmp"));
    Path out = dir.resolve("out");
    Path err = dir.resolve("err");
    List<String> line = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Duser.home=" + home, "-Djava.io.tmpdir=" + tmp,
        // The PostgreSQL binaries this JVM unpacked already, rather than unpacking them again.
        "-Dot.epg.working-dir=" + Path.of(System.getProperty("java.io.tmpdir"), "embedded-pg"), "-cp", System.getProperty("java.class.path"),
        BatonCommand.class.getName(), "demo", "--backend", "postgres", "--nodes", "2", "--buyers", "2", "--items", "40"));
    Process demo = new ProcessBuilder(line).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    assertThat(demo.waitFor(120, TimeUnit.SECONDS)).as("the demo ends").isTrue();

    assertThat(demo.exitValue()).as(Files.readString(err)).isZero();
    String report = Files.readString(out);
    assertThat(report).contains("OK: every item sold exactly once");
    assertThat(report.lines()).noneMatch(l -> l.contains("Hikari") || l.contains(" INFO ") || l.contains(" WARN ")
        || l.contains("io.zonky") || l.startsWith("["));
    assertThat(Files.readString(err)).isEmpty();
    try (Stream<Path> left = Files.list(tmp)) {
      assertThat(left.map(p -> p.getFileName().toString())).as("the server's data folder").noneMatch(n -> n.startsWith("baton-pg"));
    }
  }

  private static boolean one(Statement s, String sql) throws SQLException {
    try (ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getBoolean(1);
    }
  }

  private static boolean listening(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
      return true;
    } catch (ConnectException refused) {
      return false;
    } catch (IOException other) {
      return false;
    }
  }
}
