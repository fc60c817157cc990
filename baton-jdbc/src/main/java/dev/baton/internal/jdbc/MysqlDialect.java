package dev.baton.internal.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * MySQL and MariaDB: the grant is one conditional {@code UPDATE} of the lock's row (free or
 * expired only) that bumps the token through {@code LAST_INSERT_ID(token + 1)}, read back on the
 * same connection; the row is made once with {@code INSERT IGNORE}. Times are {@code
 * UTC_TIMESTAMP(6)}, so clients in different session time zones agree. A refused attempt marks the
 * row wanted in a statement of its own. There is no notify: waiters re-check on a back-off.
 */
final class MysqlDialect extends Dialect {
  private static final String GRANT = "UPDATE {T} SET owner = ?, token = LAST_INSERT_ID(token + ?),"
      + " expires_at = DATE_ADD(UTC_TIMESTAMP(6), INTERVAL ? MICROSECOND), acquired_at = UTC_TIMESTAMP(6),"
      + " host = ?, pid = ?, thread = ?, wanted = FALSE"
      + " WHERE name = ? AND (owner IS NULL OR expires_at <= UTC_TIMESTAMP(6) OR owner = ?)";
  private static final String MARK_WANTED = "UPDATE {T} SET wanted = TRUE WHERE name = ?";
  private static final String TOKEN = "SELECT LAST_INSERT_ID()";
  private static final String REMAINING = "SELECT TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), expires_at)"
      + " FROM {T} WHERE name = ?";
  private static final String CREATE_ROW = "INSERT IGNORE INTO {T} (name, token, expires_at)"
      + " VALUES (?, 0, '1970-01-02 00:00:00')";

  MysqlDialect(String table) {
    super(table);
  }

  @Override
  public SqlFamily family() {
    return SqlFamily.MYSQL;
  }

  @Override
  public String backend() {
    return "mysql";
  }

  @Override
  public Attempt tryGrant(Connection c, String name, Asker asker, long ttlMicros) throws SQLException {
    return tryGrant(c, name, asker, ttlMicros, 1, "");
  }

  /** There is no notify: a caching holder learns of a refused asker only when its cache idles out. */
  @Override
  public Attempt tryGrant(Connection c, String name, Asker asker, long ttlMicros, long reserve, String channel)
      throws SQLException {
    for (int round = 0; round < 2; round++) {
      int updated;
      try (PreparedStatement ps = prepare(c, GRANT)) {
        ps.setString(1, asker.owner());
        ps.setLong(2, reserve);
        ps.setLong(3, ttlMicros);
        ps.setString(4, asker.host());
        ps.setLong(5, asker.pid());
        ps.setString(6, asker.thread());
        ps.setString(7, name);
        ps.setString(8, asker.owner());
        updated = ps.executeUpdate();
      }
      if (updated == 1) {
        try (PreparedStatement ps = prepare(c, TOKEN); ResultSet rs = ps.executeQuery()) {
          rs.next();
          return new Attempt(true, rs.getLong(1), 0);
        }
      }
      // Refused: mark the row wanted so that its holder's release lets this client in (an UPDATE
      // cannot both grant and, failing that, mark: one statement more on a refusal only).
      try (PreparedStatement ps = prepare(c, MARK_WANTED)) {
        ps.setString(1, name);
        ps.executeUpdate();
      }
      try (PreparedStatement ps = prepare(c, REMAINING)) {
        ps.setString(1, name);
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            return new Attempt(false, 0, Math.max(0, rs.getLong(1)));
          }
        }
      }
      try (PreparedStatement ps = prepare(c, CREATE_ROW)) { // first use of this name
        ps.setString(1, name);
        ps.executeUpdate();
      }
    }
    return new Attempt(false, 0, 0);
  }

  /**
   * First frees the row only if it is not wanted, the usual case of a lock nobody waits for, so that
   * an uncontended release stays one statement; if that frees nothing, frees it whatever it says.
   */
  @Override
  public Released release(Connection c, String name, String owner, long token, String channel, String payload)
      throws SQLException {
    try (PreparedStatement ps = prepare(c, releaseSql() + " AND wanted = FALSE")) {
      ps.setString(1, name);
      ps.setString(2, owner);
      ps.setLong(3, token);
      if (ps.executeUpdate() == 1) {
        return new Released(true, false);
      }
    }
    try (PreparedStatement ps = prepare(c, releaseSql())) {
      ps.setString(1, name);
      ps.setString(2, owner);
      ps.setLong(3, token);
      boolean freed = ps.executeUpdate() == 1;
      return new Released(freed, freed);
    }
  }
}
