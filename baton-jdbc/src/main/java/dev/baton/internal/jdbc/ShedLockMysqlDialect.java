package dev.baton.internal.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * ShedLock's layout on MySQL and MariaDB, with ShedLock's own clock there ({@code
 * UTC_TIMESTAMP(3)}, written into its {@code TIMESTAMP(3)} columns). The grant is one transaction: a
 * conditional {@code UPDATE} of ShedLock's row (free, expired, or already this owner's), then the
 * bump of the fence row, committed together, so that a later grant of the name always draws a
 * larger token (the row stays locked until the token is drawn). The row of a name never used is
 * made free first, in a statement of its own, as the lock table's is ({@link MysqlDialect}): an
 * insert in the grant's transaction could deadlock with another client's.
 */
final class ShedLockMysqlDialect extends ShedLockDialect {
  private static final String NOW = "UTC_TIMESTAMP(3)";

  ShedLockMysqlDialect(String table, String fence) {
    super(table, fence, SqlFamily.MYSQL);
  }

  @Override
  public String backend() {
    return "mysql";
  }

  @Override
  protected String now() {
    return NOW;
  }

  @Override
  protected String nowPlusMicros() {
    return "TIMESTAMPADD(MICROSECOND, ?, " + NOW + ")";
  }

  @Override
  public Attempt tryGrant(Connection c, String name, Asker asker, long ttlMicros) throws SQLException {
    for (int round = 0; round < 2; round++) {
      Attempt attempt = grantInTransaction(c, name, asker, ttlMicros);
      if (attempt != null) {
        return attempt;
      }
      // First use of this name: a free row (ShedLock would insert one when it takes the lock).
      try (PreparedStatement ps = prepare(c, "INSERT IGNORE INTO {T} (name, lock_until, locked_at, locked_by)"
          + " VALUES (?, " + NOW + ", " + NOW + ", '')")) {
        ps.setString(1, name);
        ps.executeUpdate();
      }
    }
    return new Attempt(false, 0, 0);
  }

  /** The grant or how long the holder has left; null if the name has no row yet. */
  private Attempt grantInTransaction(Connection c, String name, Asker asker, long ttlMicros) throws SQLException {
    boolean autoCommit = c.getAutoCommit();
    c.setAutoCommit(false);
    try {
      int updated;
      String lockedBy = lockedBy(asker);
      try (PreparedStatement ps = prepare(c, "UPDATE {T} SET lock_until = " + nowPlusMicros() + ", locked_at = " + NOW
          + ", locked_by = ? WHERE name = ? AND (lock_until <= " + NOW + " OR locked_by = ?)")) {
        ps.setLong(1, ttlMicros);
        ps.setString(2, lockedBy);
        ps.setString(3, name);
        ps.setString(4, lockedBy);
        updated = ps.executeUpdate();
      }
      Attempt result = null;
      if (updated == 1) {
        try (PreparedStatement ps = prepare(c, "INSERT INTO " + fence + " (name, token) VALUES (?, 1)"
            + " ON DUPLICATE KEY UPDATE token = token + 1")) {
          ps.setString(1, name);
          ps.executeUpdate();
        }
        try (PreparedStatement ps = prepare(c, "SELECT token FROM " + fence + " WHERE name = ?")) {
          ps.setString(1, name);
          try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            result = new Attempt(true, rs.getLong(1), 0);
          }
        }
        c.commit();
        return result;
      }
      try (PreparedStatement ps = prepare(c, "SELECT TIMESTAMPDIFF(MICROSECOND, " + NOW + ", lock_until)"
          + " FROM {T} WHERE name = ?")) {
        ps.setString(1, name);
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            result = new Attempt(false, 0, Math.max(0, rs.getLong(1)));
          }
        }
      }
      c.commit();
      return result;
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
}
