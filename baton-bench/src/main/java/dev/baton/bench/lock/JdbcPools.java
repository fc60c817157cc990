package dev.baton.bench.lock;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/**
 * The connection pool the SQL rows' peers get: HikariCP with the settings {@code JdbcBaton} gives
 * its own pool (at most 6 connections, 1 kept idle, auto-commit), so no side pays for opening
 * connections inside a window that another side does not.
 */
final class JdbcPools {
  private JdbcPools() {}

  static HikariDataSource pool(String url, String name) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setPoolName(name);
    config.setMaximumPoolSize(6);
    config.setMinimumIdle(1);
    config.setAutoCommit(true);
    config.setConnectionTimeout(10_000);
    return new HikariDataSource(config);
  }
}
