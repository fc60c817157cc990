package dev.baton.jdbc;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * {@link JdbcShedLockInteropCases} on a real MariaDB from the machine's packages, over the table
 * exactly as ShedLock's README creates it for MySQL (Baton adds only its fence table); skipped,
 * naming the missing binary, where none is installed.
 */
class JdbcShedLockMariaDbInteropTest extends JdbcShedLockInteropCases {
  private static MariaDbServer server;
  private String db;

  @BeforeAll
  static void startServer() {
    assumeTrue(MariaDbServer.missing().isEmpty(), () -> MariaDbServer.missing().orElse(""));
    server = MariaDbServer.shared();
  }

  @Override
  protected String freshDatabaseUrl() {
    db = server.newDatabase();
    server.run(db, "CREATE TABLE shedlock(name VARCHAR(64) NOT NULL, lock_until TIMESTAMP(3) NOT NULL,"
        + " locked_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3), locked_by VARCHAR(255) NOT NULL,"
        + " PRIMARY KEY (name))");
    return server.url(db);
  }

  @Override
  protected DataSource shedLockDataSource() {
    return new DriverManagerDataSource(server.url(db));
  }
}
