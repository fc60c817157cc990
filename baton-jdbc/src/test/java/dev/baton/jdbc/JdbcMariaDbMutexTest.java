package dev.baton.jdbc;

/**
 * The mutex's contract on a real MariaDB from the machine's packages; skipped, naming the missing
 * binary, where none is installed.
 */
class JdbcMariaDbMutexTest extends JdbcMutexCases {
  @Override
  protected SqlTestServer server() {
    return MariaDbServer.sharedOrSkip();
  }

  @Override
  protected String expectedBackend() {
    return "mysql";
  }

  @Override
  protected void createForeignTable() {
    run("CREATE TABLE shedlock_like_lock (name VARCHAR(64) PRIMARY KEY, lock_until TIMESTAMP(3),"
        + " locked_at TIMESTAMP(3), locked_by VARCHAR(255))");
  }

  /** A two-statement grant, a release, and a back-off re-check of two statements (no notify). */
  @Override
  protected double maxStatementsPerHandOver() {
    return 6.0;
  }
}
