package dev.baton.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.ConnectionException;
import java.time.Duration;
import javax.sql.DataSource;

/** The pool a {@link JdbcBaton} makes from a JDBC URL; only loaded then, so HikariCP is optional otherwise. */
final class HikariPools {
  private HikariPools() {}

  record Made(DataSource dataSource, AutoCloseable pool) {}

  static Made make(String url, String user, String password, Duration connectTimeout, Duration renewEvery, int size,
      String describe) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername(user);
    config.setPassword(password);
    config.setPoolName("baton-jdbc");
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(1);
    config.setAutoCommit(true);
    long millis = Math.max(250, connectTimeout.toMillis());
    config.setConnectionTimeout(millis);
    config.setValidationTimeout(Math.min(millis - 1, 1000));
    config.setInitializationFailTimeout(millis);
    try {
      HikariDataSource ds = new HikariDataSource(config);
      // Once started, a statement waits for a connection at most a renewal period: a renewal that
      // cannot get one fails in time to say SUSPECT, rather than hang past the lease's validity.
      ds.setConnectionTimeout(Math.max(250, Math.min(millis, renewEvery.toMillis())));
      return new Made(ds, ds);
    } catch (RuntimeException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      throw new ConnectionException("Could not connect to " + describe + " within "
          + JdbcBaton.human(connectTimeout) + ": " + cause.getMessage()
          + "; is the database running and reachable, and are the user and password right?", e);
    }
  }
}
