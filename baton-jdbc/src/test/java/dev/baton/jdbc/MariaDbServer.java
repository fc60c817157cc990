package dev.baton.jdbc;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A real MariaDB (or MySQL) server from the machine's packages ({@code apt-get install
 * mariadb-server}), started once per JVM by {@link #shared()} as a child process on a free
 * loopback port with a temporary data directory and {@code --skip-grant-tables}, restartable on
 * the same data and port ({@link #restart()}), and stopped when the JVM exits. Each test takes a
 * fresh database ({@link #newDatabase()}). {@link #missing()} names what is not installed, for a JUnit assumption.
 */
public final class MariaDbServer implements SqlTestServer {
  private static final List<String> SERVER = List.of("mariadbd", "mysqld");
  private static final List<String> INSTALL = List.of("mariadb-install-db", "mysql_install_db");
  private static MariaDbServer shared;
  private static final AtomicInteger databases = new AtomicInteger();

  private final Path dir;
  private final Path server;
  private final int port;
  private Process process; // guarded by this

  private MariaDbServer(Path server, Path install) throws IOException {
    this.server = server;
    dir = Files.createTempDirectory("baton-jdbc-mariadb");
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    run(new ProcessBuilder(install.toString(), "--no-defaults", "--datadir=" + dir.resolve("data"), "--user=" + user(),
        "--auth-root-authentication-method=normal", "--skip-test-db"), "mariadb-install-db");
    startProcess();
  }

  /** Starts mariadbd on the data directory and port of this server, and returns once it serves. */
  private synchronized void startProcess() throws IOException {
    process = new ProcessBuilder(server.toString(), "--no-defaults", "--datadir=" + dir.resolve("data"),
        "--socket=" + dir.resolve("sock"), "--port=" + port, "--bind-address=127.0.0.1", "--user=" + user(),
        "--skip-grant-tables", "--innodb-buffer-pool-size=32M", "--skip-log-bin",
        "--pid-file=" + dir.resolve("pid"), "--max-connections=300")
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("server.log").toFile()))
        .start();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      try (Connection c = DriverManager.getConnection(url("mysql"))) {
        checkOurs(c);
        return;
      } catch (SQLException e) {
        if (!process.isAlive() || System.nanoTime() > deadline) {
          process.destroyForcibly();
          throw new IllegalStateException("MariaDB did not start on port " + port + "; see " + dir.resolve("server.log"), e);
        }
        try {
          process.waitFor(100, TimeUnit.MILLISECONDS); // returns early only if the server died
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(ie);
        }
      }
    }
  }

  /**
   * Fails unless the server that answered on this port is this one: the port was free when it was
   * picked, but another test JVM may take it before mariadbd binds it (or while it restarts), and
   * tests that then met on one server would share its databases, whose names repeat per JVM.
   */
  private void checkOurs(Connection c) throws SQLException {
    try (Statement s = c.createStatement(); java.sql.ResultSet rs = s.executeQuery("SELECT @@datadir")) {
      rs.next();
      Path served = Path.of(rs.getString(1)).toAbsolutePath().normalize();
      Path ours;
      try {
        ours = dir.resolve("data").toRealPath(); // the server reports its directory with links resolved
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      if (!served.equals(ours)) {
        process.destroyForcibly();
        throw new IllegalStateException("Port " + port + " is served by another MariaDB (data in " + served
            + "), not by the one started on " + dir.resolve("data") + "; see " + dir.resolve("server.log"));
      }
    }
  }

  /**
   * Stops the server (a clean shutdown: every connection is dropped, committed rows are kept) and
   * starts it again on the same data directory and port; returns once it serves again.
   */
  @Override
  public synchronized void restart() {
    stopProcess();
    try {
      startProcess();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String user() {
    return System.getProperty("user.name");
  }

  private static void run(ProcessBuilder pb, String what) throws IOException {
    Process p = pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    try {
      if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException(what + " failed (exit " + (p.isAlive() ? "timeout" : p.exitValue()) + ")");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** What is missing to run MariaDB tests on this machine, or empty if nothing is. */
  public static Optional<String> missing() {
    if (find(SERVER).isEmpty()) {
      return Optional.of("no MariaDB/MySQL server binary (mariadbd or mysqld) on PATH, /usr/sbin or /usr/local/sbin:"
          + " apt-get install mariadb-server to run these tests");
    }
    if (find(INSTALL).isEmpty()) {
      return Optional.of("no mariadb-install-db on PATH: apt-get install mariadb-server to run these tests");
    }
    return Optional.empty();
  }

  private static Optional<Path> find(List<String> names) {
    String path = System.getenv().getOrDefault("PATH", "") + File.pathSeparator + "/usr/sbin" + File.pathSeparator
        + "/usr/local/sbin";
    return Stream.of(path.split(File.pathSeparator))
        .flatMap(d -> names.stream().map(n -> Path.of(d, n)))
        .filter(Files::isExecutable)
        .findFirst();
  }

  /** The shared server; where none is installed, skips the test with an assumption naming what is missing. */
  public static MariaDbServer sharedOrSkip() {
    assumeTrue(missing().isEmpty(), () -> missing().orElse(""));
    return shared();
  }

  public static synchronized MariaDbServer shared() {
    if (shared == null) {
      try {
        shared = new MariaDbServer(find(SERVER).orElseThrow(), find(INSTALL).orElseThrow());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      MariaDbServer s = shared;
      Runtime.getRuntime().addShutdownHook(new Thread(s::stop));
    }
    return shared;
  }

  synchronized void stop() {
    stopProcess();
    deleteTree(dir);
  }

  private synchronized void stopProcess() {
    process.destroy();
    try {
      process.waitFor(20, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS); // the port and the data directory's lock are free once it is gone
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Deletes the server's files once it is stopped, so that test runs leave nothing in the temp folder. */
  static void deleteTree(java.nio.file.Path root) {
    try (java.util.stream.Stream<java.nio.file.Path> paths = java.nio.file.Files.walk(root)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (java.io.IOException | java.io.UncheckedIOException ignored) {
      // best effort
    }
  }

  @Override
  public int port() {
    return port;
  }

  @Override
  public String url(String database) {
    return "jdbc:mariadb://127.0.0.1:" + port + "/" + database + "?user=root";
  }

  @Override
  public String newDatabase() {
    String name = "t" + databases.incrementAndGet();
    run("mysql", "CREATE DATABASE " + name);
    return name;
  }

  @Override
  public void run(String database, String... sql) {
    try (Connection c = DriverManager.getConnection(url(database)); Statement s = c.createStatement()) {
      for (String q : sql) {
        s.execute(q);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }
}
