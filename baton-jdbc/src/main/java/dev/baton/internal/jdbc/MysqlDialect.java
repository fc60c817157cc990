package dev.baton.internal.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * MySQL and MariaDB: the grant is one conditional {@code UPDATE} of the lock's row (free or
 * expired only) that bumps the token through {@code LAST_INSERT_ID(token + 1)}, which comes back
 * in the reply's insert id (the driver's generated key; else {@code SELECT LAST_INSERT_ID()} on the
 * same connection); the row is made once with {@code INSERT IGNORE}. Times are {@code
 * UTC_TIMESTAMP(6)}, so clients in different session time zones agree. A refused attempt marks the
 * row wanted in a statement of its own. There is no notify: waiters re-check on a back-off.
 */
final class MysqlDialect extends Dialect {
  // MySQL assigns left to right, later ones seeing earlier ones: wanted first, from the old row (still
  // wanted if the client that freed it waits for it, see YIELDING, and is not the asker).
  private static final String GRANT = "UPDATE {T} SET wanted = (owner IS NULL AND thread IS NOT NULL AND token <> ?),"
      + " owner = ?, token = LAST_INSERT_ID(token + ?),"
      + " expires_at = DATE_ADD(UTC_TIMESTAMP(6), INTERVAL ? MICROSECOND), acquired_at = UTC_TIMESTAMP(6),"
      + " host = ?, pid = ?, thread = ?"
      + " WHERE name = ? AND (owner IS NULL OR expires_at <= UTC_TIMESTAMP(6) OR owner = ?)"
      // The asker's own client freed the row at this token, and another asker wanted it: yield.
      + " AND NOT (owner IS NULL AND token = ? AND wanted"
      + "  AND expires_at > DATE_SUB(UTC_TIMESTAMP(6), INTERVAL ? MICROSECOND))";
  private static final String MARK_WANTED = "UPDATE {T} SET thread = CASE WHEN owner IS NULL THEN " + YIELDING
      + " ELSE thread END, wanted = TRUE WHERE name = ?";
  private static final String TOKEN = "SELECT LAST_INSERT_ID()";
  /** How long the holder has left, or (a free row that refused an asker that yields) how long it still yields; the token. */
  private static final String REMAINING = "SELECT TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), expires_at)"
      + " + CASE WHEN owner IS NULL THEN ? ELSE 0 END, token FROM {T} WHERE name = ?";
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
      long token = 0;
      try (PreparedStatement ps = prepare(c, GRANT, Statement.RETURN_GENERATED_KEYS)) {
        ps.setLong(1, asker.yieldTo());
        ps.setString(2, asker.owner());
        ps.setLong(3, reserve);
        ps.setLong(4, ttlMicros);
        ps.setString(5, asker.host());
        ps.setLong(6, asker.pid());
        ps.setString(7, asker.thread());
        ps.setString(8, name);
        ps.setString(9, asker.owner());
        ps.setLong(10, asker.yieldTo());
        ps.setLong(11, asker.yieldMicros());
        updated = ps.executeUpdate();
        if (updated == 1) {
          // LAST_INSERT_ID(expr) in an UPDATE puts expr in the reply's insert id, which the driver
          // hands out as the generated key: the token without a statement more.
          try (ResultSet keys = ps.getGeneratedKeys()) {
            token = keys.next() ? keys.getLong(1) : 0;
          }
        }
      }
      if (updated == 1 && token > 0) {
        return new Attempt(true, token, 0);
      }
      if (updated == 1) { // a driver that does not hand the insert id out: ask for it
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
        ps.setLong(1, asker.yieldMicros());
        ps.setString(2, name);
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            return new Attempt(false, rs.getLong(2), Math.max(0, rs.getLong(1)));
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
    return release(c, name, owner, token, channel, payload, false);
  }

  @Override
  public Released release(Connection c, String name, String owner, long token, String channel, String payload,
      boolean waiting) throws SQLException {
    try (PreparedStatement ps = prepare(c, releaseSql() + " AND wanted = FALSE")) {
      ps.setString(1, name);
      ps.setString(2, owner);
      ps.setLong(3, token);
      if (ps.executeUpdate() == 1) {
        return new Released(true, false);
      }
    }
    // Wanted: if this client waits too, say so in the row (YIELDING) for whoever takes it next.
    try (PreparedStatement ps = prepare(c, releaseSql().replace("thread = NULL",
        "thread = " + (waiting ? YIELDING : "NULL")))) {
      ps.setString(1, name);
      ps.setString(2, owner);
      ps.setLong(3, token);
      boolean freed = ps.executeUpdate() == 1;
      return new Released(freed, freed);
    }
  }
}
