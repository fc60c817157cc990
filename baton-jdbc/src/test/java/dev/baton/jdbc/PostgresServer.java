package dev.baton.jdbc;

import dev.baton.embedded.EmbeddedPostgreSql;
import javax.sql.DataSource;

/**
 * The JVM's one PostgreSQL for this module's tests ({@link EmbeddedPostgreSql#shared()}): real
 * binaries on a free loopback port, restartable on the same data. Each test takes a fresh
 * database ({@link #newDatabase()}).
 */
public final class PostgresServer implements SqlTestServer {
  private static PostgresServer shared;
  private final EmbeddedPostgreSql server;

  private PostgresServer(EmbeddedPostgreSql server) {
    this.server = server;
  }

  public static synchronized PostgresServer shared() {
    if (shared == null) {
      shared = new PostgresServer(EmbeddedPostgreSql.shared());
    }
    return shared;
  }

  /** Stops the server and starts it again on the same data and port. */
  @Override
  public void restart() {
    server.restart();
  }

  @Override
  public int port() {
    return server.port();
  }

  /** A JDBC URL of {@code database} as the superuser, with {@code extra} parameters (may be empty). */
  public String url(String database, String extra) {
    return server.url(database, extra);
  }

  @Override
  public String url(String database) {
    return url(database, "");
  }

  public DataSource dataSource(String database) {
    return server.dataSource(database);
  }

  @Override
  public String newDatabase() {
    return server.newDatabase();
  }

  /** Runs statements on the {@code postgres} database as the superuser. */
  public void admin(String... sql) {
    server.admin(sql);
  }

  @Override
  public void run(String database, String... sql) {
    server.run(database, sql);
  }
}
