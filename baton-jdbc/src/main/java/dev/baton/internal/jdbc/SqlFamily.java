package dev.baton.internal.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * What differs between the SQL of PostgreSQL and of MySQL/MariaDB, as fragments the recipes splice
 * into otherwise shared statements: the database clock, time arithmetic, insert-if-absent, share
 * locks, wake-ups and the counter's single-statement update. Times are always the database's, in
 * UTC on MySQL ({@code UTC_TIMESTAMP(6)}) so that clients in different session time zones agree.
 */
public enum SqlFamily {
  POSTGRES {
    @Override
    String now() {
      return "now()";
    }

    @Override
    String nowPlusMicros() {
      return "now() + ?::bigint * interval '1 microsecond'";
    }

    @Override
    String microsUntil(String column) {
      return "(extract(epoch FROM (" + column + " - now())) * 1000000)::bigint";
    }

    @Override
    String insertIgnore(String intoAndColumns, String values) {
      return "INSERT INTO " + intoAndColumns + " VALUES (" + values + ") ON CONFLICT DO NOTHING";
    }

    @Override
    String forShare() {
      return "FOR SHARE";
    }

    @Override
    void notify(Dialect dialect, Connection c, String channel, String payload) throws SQLException {
      // Sent inside the caller's transaction: PostgreSQL delivers it exactly when that commits.
      try (PreparedStatement ps = dialect.prepare(c, "SELECT pg_notify(?, ?)")) {
        ps.setString(1, channel);
        ps.setString(2, payload);
        ps.executeQuery().close();
      }
    }

    @Override
    long add(Dialect dialect, Connection c, String table, String name, long delta) throws SQLException {
      try (PreparedStatement ps = dialect.prepare(c, "INSERT INTO " + table + " AS t (name, value) VALUES (?, ?)"
          + " ON CONFLICT (name) DO UPDATE SET value = t.value + EXCLUDED.value RETURNING value")) {
        ps.setString(1, name);
        ps.setLong(2, delta);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          return rs.getLong(1);
        }
      }
    }

    @Override
    String upsertValue(String table) {
      return "INSERT INTO " + table + " (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value";
    }

    @Override
    void readCommittedNext(Dialect dialect, Connection c) {
      // READ COMMITTED is PostgreSQL's default, and its statements lock only the rows they change.
    }

    @Override
    boolean isMissingTable(SQLException e) {
      return "42P01".equals(e.getSQLState());
    }

    @Override
    boolean isMissingColumn(SQLException e) {
      return "42703".equals(e.getSQLState());
    }

    @Override
    boolean isDenied(SQLException e) {
      return "42501".equals(e.getSQLState());
    }
  },

  MYSQL {
    @Override
    String now() {
      return "UTC_TIMESTAMP(6)";
    }

    @Override
    String nowPlusMicros() {
      return "DATE_ADD(UTC_TIMESTAMP(6), INTERVAL ? MICROSECOND)";
    }

    @Override
    String microsUntil(String column) {
      return "TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), " + column + ")";
    }

    @Override
    String insertIgnore(String intoAndColumns, String values) {
      return "INSERT IGNORE INTO " + intoAndColumns + " VALUES (" + values + ")";
    }

    @Override
    String forShare() {
      return "LOCK IN SHARE MODE";
    }

    @Override
    void notify(Dialect dialect, Connection c, String channel, String payload) {
      // No notify on MySQL: waiters re-check on a back-off.
    }

    @Override
    long add(Dialect dialect, Connection c, String table, String name, long delta) throws SQLException {
      // The update is one statement; the read after it, in the same transaction, sees the row as that
      // statement left it (the row stays locked until the commit). LAST_INSERT_ID(expr) would save the
      // read but is unsigned: it cannot carry a counter below zero.
      boolean autoCommit = c.getAutoCommit();
      c.setAutoCommit(false);
      try {
        try (PreparedStatement ps = dialect.prepare(c, "INSERT INTO " + table + " (name, value) VALUES (?, ?)"
            + " ON DUPLICATE KEY UPDATE value = value + VALUES(value)")) {
          ps.setString(1, name);
          ps.setLong(2, delta);
          ps.executeUpdate();
        }
        long value;
        try (PreparedStatement ps = dialect.prepare(c, "SELECT value FROM " + table + " WHERE name = ?")) {
          ps.setString(1, name);
          try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            value = rs.getLong(1);
          }
        }
        c.commit();
        return value;
      } catch (SQLException | RuntimeException e) {
        try {
          c.rollback();
        } catch (SQLException ignored) {
          // the connection is gone: the database rolls back
        }
        throw e;
      } finally {
        try {
          c.setAutoCommit(autoCommit);
        } catch (SQLException ignored) {
          // a broken connection: the pool drops it
        }
      }
    }

    @Override
    String upsertValue(String table) {
      return "INSERT INTO " + table + " (name, value) VALUES (?, ?) ON DUPLICATE KEY UPDATE value = VALUES(value)";
    }

    @Override
    void readCommittedNext(Dialect dialect, Connection c) throws SQLException {
      // For the next transaction only: the pooled connection's own level is left as it was.
      try (PreparedStatement ps = dialect.prepare(c, "SET TRANSACTION ISOLATION LEVEL READ COMMITTED")) {
        ps.execute();
      }
    }

    @Override
    boolean isMissingTable(SQLException e) {
      return e.getErrorCode() == 1146 || "42S02".equals(e.getSQLState());
    }

    @Override
    boolean isMissingColumn(SQLException e) {
      return e.getErrorCode() == 1054 || "42S22".equals(e.getSQLState());
    }

    @Override
    boolean isDenied(SQLException e) {
      int code = e.getErrorCode();
      return code == 1142 || code == 1143 || code == 1044 || code == 1045;
    }
  };

  /** The database's clock. */
  abstract String now();

  /** The database's clock plus {@code ?} microseconds (one parameter). */
  abstract String nowPlusMicros();

  /** Microseconds from the database's clock to {@code column} (negative once past). */
  abstract String microsUntil(String column);

  /** Inserts one row unless its key exists. */
  abstract String insertIgnore(String intoAndColumns, String values);

  /** The suffix of a {@code SELECT} that share-locks the rows it reads. */
  abstract String forShare();

  /** Wakes the waiters of other clients, when the caller's transaction commits (nothing on MySQL). */
  abstract void notify(Dialect dialect, Connection c, String channel, String payload) throws SQLException;

  /** Adds {@code delta} to the counter row (made at {@code delta} if missing) and returns its new value. */
  abstract long add(Dialect dialect, Connection c, String table, String name, long delta) throws SQLException;

  /** Sets the counter row to the second parameter, making it if missing. */
  abstract String upsertValue(String table);

  /**
   * Runs the connection's next transaction at READ COMMITTED, so that its {@code UPDATE}s and
   * {@code DELETE}s lock only the rows they change. The shared recipes' transactions need no more
   * (their grants serialize on the name's header row, whatever the level); MySQL's default,
   * REPEATABLE READ, would lock every row of the name a statement scans, the live leases' too, and
   * hold their renewals back until the transaction commits.
   */
  abstract void readCommittedNext(Dialect dialect, Connection c) throws SQLException;

  /** Whether {@code e} says a table does not exist. */
  abstract boolean isMissingTable(SQLException e);

  /** Whether {@code e} says a column does not exist. */
  abstract boolean isMissingColumn(SQLException e);

  /** Whether {@code e} says the user may not do what was asked. */
  abstract boolean isDenied(SQLException e);

  /** The SQLState of a value out of a column's range (a {@code BIGINT} overflow), on both families. */
  static boolean isOutOfRange(SQLException e) {
    return "22003".equals(e.getSQLState()) || e.getErrorCode() == 1690 || e.getErrorCode() == 1264;
  }
}
