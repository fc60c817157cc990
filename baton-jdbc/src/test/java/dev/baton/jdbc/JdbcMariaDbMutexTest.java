package dev.baton.jdbc;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.BeforeAll;

/**
 * The mutex's contract on a real MariaDB from the machine's packages; skipped, naming the missing
 * binary, where none is installed.
 */
class JdbcMariaDbMutexTest extends JdbcMutexCases {
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
  protected String expectedBackend() {
    return "mysql";
  }

  @Override
  protected void createForeignTable() {
    server.run(database, "CREATE TABLE shedlock_like_lock (name VARCHAR(64) PRIMARY KEY, lock_until TIMESTAMP(3),"
        + " locked_at TIMESTAMP(3), locked_by VARCHAR(255))");
  }

  /** A two-statement grant, a release, and a back-off re-check of two statements (no notify). */
  @Override
  protected double maxStatementsPerHandOver() {
    return 6.0;
  }
}
