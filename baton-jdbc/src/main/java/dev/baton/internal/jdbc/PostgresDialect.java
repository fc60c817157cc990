package dev.baton.internal.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * PostgreSQL: the grant is one statement (an upsert that takes the row only if it is free or
 * expired, and bumps its token, or else marks it wanted), returning either the new token or how
 * long the holder has left. Release frees the row, reads whether it was wanted and, if so, sends
 * {@code pg_notify} in the same statement, so the notice is delivered exactly when the release
 * commits.
 */
final class PostgresDialect extends Dialect {
  private static final String GRANT = "WITH g AS ("
      + " INSERT INTO {T} AS l (name, owner, token, expires_at, acquired_at, host, pid, thread, wanted)"
      + " VALUES (?, ?, ?::bigint, now() + ?::bigint * interval '1 microsecond', now(), ?, ?, ?, false)"
      + " ON CONFLICT (name) DO UPDATE SET owner = EXCLUDED.owner, token = l.token + EXCLUDED.token,"
      + "  expires_at = EXCLUDED.expires_at, acquired_at = EXCLUDED.acquired_at,"
      + "  host = EXCLUDED.host, pid = EXCLUDED.pid, thread = EXCLUDED.thread,"
      // Still wanted if the client that freed the row waits for it (see YIELDING), and is not the asker.
      + "  wanted = (l.owner IS NULL AND l.thread IS NOT NULL AND l.token <> ?::bigint)"
      + " WHERE (l.owner IS NULL OR l.expires_at <= now() OR l.owner = EXCLUDED.owner)"
      // The asker's own client freed the row at this token, and another asker wanted it: yield.
      + "  AND NOT (l.owner IS NULL AND l.token = ?::bigint AND l.wanted"
      + "   AND l.expires_at > now() - ?::bigint * interval '1 microsecond')"
      + " RETURNING token),"
      // Refused: the row (locked by the upsert above) is marked wanted in the same statement.
      + " w AS (UPDATE {T} SET wanted = true, thread = CASE WHEN owner IS NULL THEN " + YIELDING + " ELSE thread END"
      + " WHERE name = ? AND NOT EXISTS (SELECT 1 FROM g)"
      + " RETURNING token, expires_at, owner)"
      + " SELECT true, token, 0::bigint, 0 FROM g"
      + " UNION ALL"
      // A caching holder is told (only it: other holders release on their own) by a notify that
      // goes out when this statement commits; CASE runs the notify for such a holder only.
      // A free row refused the asker that yields: how long it still yields (a release sets expires_at to now()).
      + " SELECT false, token, (extract(epoch FROM (expires_at - now()"
      + "  + CASE WHEN owner IS NULL THEN ?::bigint * interval '1 microsecond' ELSE interval '0' END)) * 1000000)::bigint,"
      + "  CASE WHEN strpos(owner, '" + CACHING_MARK + "') > 0 THEN (SELECT 1 FROM pg_notify(?, ?)) END FROM w";

  PostgresDialect(String table) {
    super(table);
  }

  @Override
  public SqlFamily family() {
    return SqlFamily.POSTGRES;
  }

  @Override
  public String backend() {
    return "postgresql";
  }

  @Override
  public Attempt tryGrant(Connection c, String name, Asker asker, long ttlMicros) throws SQLException {
    return tryGrant(c, name, asker, ttlMicros, 1, "");
  }

  @Override
  public Attempt tryGrant(Connection c, String name, Asker asker, long ttlMicros, long reserve, String channel)
      throws SQLException {
    try (PreparedStatement ps = prepare(c, GRANT)) {
      ps.setString(1, name);
      ps.setString(2, asker.owner());
      ps.setLong(3, reserve);
      ps.setLong(4, ttlMicros);
      ps.setString(5, asker.host());
      ps.setLong(6, asker.pid());
      ps.setString(7, asker.thread());
      ps.setLong(8, asker.yieldTo());
      ps.setLong(9, asker.yieldTo());
      ps.setLong(10, asker.yieldMicros());
      ps.setString(11, name);
      ps.setLong(12, asker.yieldMicros());
      ps.setString(13, channel);
      ps.setString(14, wantedPayload(name));
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return new Attempt(false, 0, 0); // the row vanished meanwhile: try again soon
        }
        return new Attempt(rs.getBoolean(1), rs.getLong(2), rs.getLong(3));
      }
    }
  }

  /**
   * Frees the row and, if another asker was refused it since the grant, sends {@code pg_notify} in
   * the same statement: the notice goes out exactly when the release commits.
   */
  @Override
  public Released release(Connection c, String name, String owner, long token, String channel, String payload)
      throws SQLException {
    return release(c, name, owner, token, channel, payload, false);
  }

  @Override
  public Released release(Connection c, String name, String owner, long token, String channel, String payload,
      boolean waiting) throws SQLException {
    try (PreparedStatement ps = prepare(c, "WITH r AS (" + releaseSql().replace("thread = NULL",
        "thread = CASE WHEN wanted AND ? THEN " + YIELDING + " END") + " RETURNING wanted)"
        // Only a release another asker was refused since the grant wakes anyone: each refused
        // attempt marks the row wanted, and a notify costs the release more than the update does.
        + " SELECT CASE WHEN wanted THEN (SELECT 1 FROM pg_notify(?, ?)) END, wanted FROM r")) {
      ps.setBoolean(1, waiting);
      ps.setString(2, name);
      ps.setString(3, owner);
      ps.setLong(4, token);
      ps.setString(5, channel);
      ps.setString(6, payload);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? new Released(true, rs.getBoolean(2)) : new Released(false, false);
      }
    }
  }

  @Override
  public boolean abandon(Connection c, String name, String owner, String channel, String payload)
      throws SQLException {
    try (PreparedStatement ps = prepare(c, notifying(abandonSql()))) {
      ps.setString(1, name);
      ps.setString(2, owner);
      ps.setString(3, channel);
      ps.setString(4, payload);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  /** {@code update}, then a notify (two more parameters: channel, payload) if it changed a row. */
  private static String notifying(String update) {
    return "WITH r AS (" + update + " RETURNING name) SELECT pg_notify(?, ?) FROM r";
  }
}
