package dev.baton.internal.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * ShedLock's layout on PostgreSQL: the grant is one statement (an upsert of ShedLock's row that
 * takes it only if it is free, expired or already this owner's, and the bump of the fence row in
 * the same statement); the release frees the row and notifies in one statement.
 */
final class ShedLockPostgresDialect extends ShedLockDialect {
  private static final String NOW = "timezone('utc', CURRENT_TIMESTAMP)";

  ShedLockPostgresDialect(String table, String fence) {
    super(table, fence, SqlFamily.POSTGRES);
  }

  @Override
  public String backend() {
    return "postgresql";
  }

  @Override
  protected String now() {
    return NOW;
  }

  @Override
  protected String nowPlusMicros() {
    return NOW + " + ?::bigint * interval '1 microsecond'";
  }

  @Override
  public Attempt tryGrant(Connection c, String name, Asker asker, long ttlMicros) throws SQLException {
    String sql = "WITH g AS ("
        + " INSERT INTO {T} AS l (name, lock_until, locked_at, locked_by)"
        + " VALUES (?, " + nowPlusMicros() + ", " + NOW + ", ?)"
        + " ON CONFLICT (name) DO UPDATE SET lock_until = EXCLUDED.lock_until, locked_at = EXCLUDED.locked_at,"
        + "  locked_by = EXCLUDED.locked_by"
        + " WHERE l.lock_until <= " + NOW + " OR l.locked_by = EXCLUDED.locked_by"
        + " RETURNING name),"
        + " f AS (INSERT INTO " + fence + " AS f (name, token) SELECT name, 1 FROM g"
        + " ON CONFLICT (name) DO UPDATE SET token = f.token + 1 RETURNING token)"
        + " SELECT true, token, 0::bigint FROM f"
        + " UNION ALL"
        + " SELECT false, 0::bigint, (extract(epoch FROM (lock_until - " + NOW + ")) * 1000000)::bigint"
        + " FROM {T} WHERE name = ? AND NOT EXISTS (SELECT 1 FROM g)";
    try (PreparedStatement ps = prepare(c, sql)) {
      ps.setString(1, name);
      ps.setLong(2, ttlMicros);
      ps.setString(3, lockedBy(asker));
      ps.setString(4, name);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return new Attempt(false, 0, 0);
        }
        return new Attempt(rs.getBoolean(1), rs.getLong(2), rs.getLong(3));
      }
    }
  }

  /** Frees the row and sends {@code pg_notify} in the same statement: one round trip, the notice sent when it commits. */
  @Override
  public boolean abandon(Connection c, String name, String owner, String channel, String payload)
      throws SQLException {
    try (PreparedStatement ps = prepare(c, "WITH r AS (" + freeSql() + " RETURNING name) SELECT pg_notify(?, ?) FROM r")) {
      ps.setString(1, name);
      ps.setString(2, ownerPattern(owner));
      ps.setString(3, channel);
      ps.setString(4, payload);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }
}
