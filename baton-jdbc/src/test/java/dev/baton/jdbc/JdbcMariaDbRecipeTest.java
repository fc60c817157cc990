package dev.baton.jdbc;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.BeforeAll;

/**
 * The semaphore, read-write lock and counter on a real MariaDB from the machine's packages;
 * skipped, naming the missing binary, where none is installed.
 */
class JdbcMariaDbRecipeTest extends JdbcRecipeCases {
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
  protected void runSql(String sql) {
    server.run(database, sql);
  }
}
