package dev.baton.jdbc;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.BeforeAll;

/**
 * The caching SQL mutex on a real MariaDB (no notify: a cached row is given up when it idles out);
 * skipped, naming the missing binary, where none is installed.
 */
class JdbcMariaDbCachingMutexTest extends JdbcCachingMutexCases {
  private static MariaDbServer server;
  private String database;

  @BeforeAll
  static void startServer() {
    assumeTrue(MariaDbServer.missing().isEmpty(), () -> MariaDbServer.missing().orElse(""));
    server = MariaDbServer.shared();
  }

  @Override
  protected JdbcBaton.Builder freshBuilder() {
    database = server.newDatabase();
    return JdbcBaton.builder().url(server.url(database));
  }

  @Override
  protected void run(String... sql) {
    client();
    server.run(database, sql);
  }
}
