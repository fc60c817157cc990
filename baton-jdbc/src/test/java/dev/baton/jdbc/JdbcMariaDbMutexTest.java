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

  /** InnoDB queues row locks in order: the clients alternate (longest runs of 1 to 4 seen). */
  @Override
  protected int maxRun() {
    return 20;
  }

  /**
   * A one-statement grant (the token in its reply), a release, and now and then a back-off re-check
   * of three statements (no notify): 2.02 to 4.50 seen, the most with 2 waiters, where one re-check more
   * counts for 1.5.
   */
  @Override
  protected double maxStatementsPerHandOver() {
    return 6.0;
  }
}
