package dev.baton.cli.demo;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.cli.command.CliException;
import dev.baton.cli.command.DurationConverter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * The demo's stock in a PostgreSQL table, in the same database as Baton's lock rows, through a
 * small pool of its own: one row per stock ({@code name, count, fence}). The fenced write is one
 * statement, {@code UPDATE ... SET count = ?, fence = ? WHERE name = ? AND fence <= ?}: the check
 * of the token and the write cannot be split by another writer, as the database's row lock sees
 * to. The table is made by the first run and dropped by the last one's clean-up.
 */
public final class PostgresStock implements StockStore {
  static final String TABLE = "baton_demo_stock";
  private static final String CREATE_TABLE = "CREATE TABLE IF NOT EXISTS " + TABLE
      + " (name VARCHAR(255) NOT NULL PRIMARY KEY, count INTEGER NOT NULL, fence BIGINT NOT NULL DEFAULT 0)";
  // SQLSTATE: the table is gone (dropped by another run's clean-up), or made at the same moment by another run.
  private static final String UNDEFINED_TABLE = "42P01";
  private static final String UNIQUE_VIOLATION = "23505";

  private final HikariDataSource pool;
  private final String shown;

  private PostgresStock(HikariDataSource pool, String shown) {
    this.pool = pool;
    this.shown = shown;
  }

  /**
   * Opens a pool of at most {@code size} connections to {@code url} (user and password may be
   * null: the URL's own), waiting at most {@code timeout} for the first.
   */
  static PostgresStock connect(String url, String user, String password, Duration timeout, int size) {
    String shown = DemoBackend.Postgres.redact(url);
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername(user);
    config.setPassword(password);
    config.setPoolName("baton-demo-stock");
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(1);
    config.setAutoCommit(true);
    long millis = Math.max(250, timeout.toMillis());
    config.setConnectionTimeout(millis);
    config.setInitializationFailTimeout(millis);
    try {
      return new PostgresStock(new HikariDataSource(config), shown);
    } catch (RuntimeException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      throw new CliException("No PostgreSQL answered at " + shown + " within " + DurationConverter.seconds(timeout)
          + ": " + cause.getMessage(), e);
    }
  }

  @Override
  public void create(String name, int count) {
    for (int attempt = 1; ; attempt++) {
      try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
        s.execute(CREATE_TABLE);
        try (PreparedStatement insert = c.prepareStatement(
            "INSERT INTO " + TABLE + " (name, count, fence) VALUES (?, ?, 0)")) {
          insert.setString(1, name);
          insert.setInt(2, count);
          insert.executeUpdate();
        }
        return;
      } catch (SQLException e) {
        // Another run dropped the table between our CREATE and INSERT, or created it with us.
        boolean race = UNDEFINED_TABLE.equals(e.getSQLState()) || UNIQUE_VIOLATION.equals(e.getSQLState())
            && String.valueOf(e.getMessage()).contains("pg_type");
        if (!race || attempt == 3) {
          throw failed(name, e);
        }
      }
    }
  }

  @Override
  public Stock readStock(String name) {
    try (Connection c = pool.getConnection();
         PreparedStatement read = c.prepareStatement("SELECT count, fence FROM " + TABLE + " WHERE name = ?")) {
      read.setString(1, name);
      try (ResultSet rs = read.executeQuery()) {
        if (!rs.next()) {
          throw new CliException("The stock row " + name + " is gone from " + TABLE + " at " + shown);
        }
        return new Stock(rs.getInt(1), rs.getLong(2), 0);
      }
    } catch (SQLException e) {
      throw failed(name, e);
    }
  }

  /** Overwrites the count whatever it is now: deliberately no check of any kind. */
  @Override
  public void write(String name, int count) {
    update("UPDATE " + TABLE + " SET count = ? WHERE name = ?", name, count);
  }

  /**
   * {@inheritDoc} One statement: the row is written only if its fence is not above {@code token};
   * {@code seen} is not needed, the row lock taken by the UPDATE makes the check and the write one.
   */
  @Override
  public boolean writeFenced(String name, int count, long token, Stock seen) {
    try (Connection c = pool.getConnection();
         PreparedStatement write = c.prepareStatement(
             "UPDATE " + TABLE + " SET count = ?, fence = ? WHERE name = ? AND fence <= ?")) {
      write.setInt(1, count);
      write.setLong(2, token);
      write.setString(3, name);
      write.setLong(4, token);
      return write.executeUpdate() == 1;
    } catch (SQLException e) {
      throw failed(name, e);
    }
  }

  /**
   * Deletes the stock rows and Baton's lock rows named {@code root} or below it ({@code root/...}),
   * then drops the stock table if no other run still has a row in it. Best effort: a leftover
   * demo row must not turn a finished run into a failure. Call it once the lock clients are closed.
   */
  @Override
  public void deleteTree(String root) {
    try (Connection c = pool.getConnection()) {
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        deleteBelow(c, TABLE, root);
        if (exists(c, "baton_lock")) {
          deleteBelow(c, "baton_lock", root);
        }
        // Under the table's exclusive lock no other run can add a row between the check and the drop.
        s.execute("LOCK TABLE " + TABLE + " IN ACCESS EXCLUSIVE MODE");
        try (ResultSet rs = s.executeQuery("SELECT EXISTS (SELECT 1 FROM " + TABLE + ")")) {
          rs.next();
          if (!rs.getBoolean(1)) {
            s.execute("DROP TABLE " + TABLE);
          }
        }
        c.commit();
      } catch (SQLException e) {
        c.rollback();
      } finally {
        c.setAutoCommit(true);
      }
    } catch (SQLException e) {
      // Best effort, as the other stores' clean-up.
    }
  }

  private static void deleteBelow(Connection c, String table, String root) throws SQLException {
    try (PreparedStatement delete = c.prepareStatement(
        "DELETE FROM " + table + " WHERE name = ? OR left(name, ?) = ?")) {
      delete.setString(1, root);
      delete.setInt(2, root.length() + 1);
      delete.setString(3, root + "/");
      delete.executeUpdate();
    }
  }

  private static boolean exists(Connection c, String table) throws SQLException {
    try (PreparedStatement probe = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
      probe.setString(1, table);
      try (ResultSet rs = probe.executeQuery()) {
        return rs.next() && rs.getBoolean(1);
      }
    }
  }

  /** Whether the stock table exists; for tests that check the clean-up. */
  boolean tableExists() {
    try (Connection c = pool.getConnection()) {
      return exists(c, TABLE);
    } catch (SQLException e) {
      throw failed(TABLE, e);
    }
  }

  @Override
  public void close() {
    pool.close();
  }

  private void update(String sql, String name, int count) {
    try (Connection c = pool.getConnection(); PreparedStatement write = c.prepareStatement(sql)) {
      write.setInt(1, count);
      write.setString(2, name);
      write.executeUpdate();
    } catch (SQLException e) {
      throw failed(name, e);
    }
  }

  private CliException failed(String name, SQLException e) {
    return new CliException("PostgreSQL at " + shown + " failed an operation on " + name + ": " + e.getMessage(), e);
  }
}
