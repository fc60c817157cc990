package dev.baton.jdbc;

import javax.sql.DataSource;

/** {@link JdbcShedLockInteropCases} on a real PostgreSQL. */
class JdbcShedLockInteropTest extends JdbcShedLockInteropCases {
  private static final PostgresServer server = PostgresServer.shared();
  private String db;

  @Override
  protected String freshDatabaseUrl() {
    db = server.newDatabase();
    return server.url(db, "");
  }

  @Override
  protected DataSource shedLockDataSource() {
    return server.dataSource(db);
  }
}
