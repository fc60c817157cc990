package dev.baton.internal.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

/**
 * PostgreSQL: the grant is one statement (an upsert that takes the row only if it is free or
 * expired, and bumps its token), returning either the new token or how long the holder has left.
 * Release frees the row and sends {@code pg_notify} in the same statement, so the notice is
 * delivered exactly when the release commits.
 */
final class PostgresDialect extends Dialect {
  private static final String GRANT = "WITH g AS ("
      + " INSERT INTO {T} AS l (name, owner, token, expires_at, acquired_at, host, pid, thread)"
      + " VALUES (?, ?, 1, now() + ?::bigint * interval '1 microsecond', now(), ?, ?, ?)"
      + " ON CONFLICT (name) DO UPDATE SET owner = EXCLUDED.owner, token = l.token + 1,"
      + "  expires_at = EXCLUDED.expires_at, acquired_at = EXCLUDED.acquired_at,"
      + "  host = EXCLUDED.host, pid = EXCLUDED.pid, thread = EXCLUDED.thread"
      + " WHERE l.owner IS NULL OR l.expires_at <= now() OR l.owner = EXCLUDED.owner"
      + " RETURNING token)"
      + " SELECT true, token, 0::bigint FROM g"
      + " UNION ALL"
      + " SELECT false, token, (extract(epoch FROM (expires_at - now())) * 1000000)::bigint"
      + " FROM {T} WHERE name = ? AND NOT EXISTS (SELECT 1 FROM g)";
  private static final String RENEW = "UPDATE {T} SET expires_at = now() + ?::bigint * interval '1 microsecond'"
      + " WHERE name = ? AND owner = ? AND token = ? AND expires_at > now()";
  private static final String RELEASE = "WITH r AS (UPDATE {T} SET owner = NULL, expires_at = now(),"
      + " host = NULL, pid = NULL, thread = NULL WHERE name = ? AND owner = ? AND token = ? RETURNING name)"
      + " SELECT pg_notify(?, ?) FROM r";
  private static final String ABANDON = "UPDATE {T} SET owner = NULL, expires_at = now(), host = NULL, pid = NULL,"
      + " thread = NULL WHERE name = ? AND owner = ?";
  private static final String LOCK_IF_HELD = "SELECT 1 FROM {T} WHERE name = ? AND owner = ? AND token = ?"
      + " AND expires_at > now() FOR SHARE";
  private static final String READ = "SELECT owner, token, acquired_at, host, pid, thread,"
      + " owner IS NOT NULL AND expires_at > now() FROM {T} WHERE name = ?";

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
    try (PreparedStatement ps = prepare(c, GRANT)) {
      ps.setString(1, name);
      ps.setString(2, asker.owner());
      ps.setLong(3, ttlMicros);
      ps.setString(4, asker.host());
      ps.setLong(5, asker.pid());
      ps.setString(6, asker.thread());
      ps.setString(7, name);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return new Attempt(false, 0, 0); // the row vanished meanwhile: try again soon
        }
        return new Attempt(rs.getBoolean(1), rs.getLong(2), rs.getLong(3));
      }
    }
  }

  @Override
  public boolean renew(Connection c, String name, String owner, long token, long ttlMicros) throws SQLException {
    try (PreparedStatement ps = prepare(c, RENEW)) {
      ps.setLong(1, ttlMicros);
      ps.setString(2, name);
      ps.setString(3, owner);
      ps.setLong(4, token);
      return ps.executeUpdate() == 1;
    }
  }

  @Override
  public boolean release(Connection c, String name, String owner, long token, String channel, String payload)
      throws SQLException {
    try (PreparedStatement ps = prepare(c, RELEASE)) {
      ps.setString(1, name);
      ps.setString(2, owner);
      ps.setLong(3, token);
      ps.setString(4, channel);
      ps.setString(5, payload);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  @Override
  public boolean abandon(Connection c, String name, String owner, String channel, String payload)
      throws SQLException {
    try (PreparedStatement ps = prepare(c, "WITH r AS (" + ABANDON + " RETURNING name) SELECT pg_notify(?, ?) FROM r")) {
      ps.setString(1, name);
      ps.setString(2, owner);
      ps.setString(3, channel);
      ps.setString(4, payload);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  @Override
  public boolean lockIfHeld(Connection c, String name, String owner, long token) throws SQLException {
    try (PreparedStatement ps = prepare(c, LOCK_IF_HELD)) {
      ps.setString(1, name);
      ps.setString(2, owner);
      ps.setLong(3, token);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  @Override
  public Optional<Row> read(Connection c, String name) throws SQLException {
    try (PreparedStatement ps = prepare(c, READ)) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        return row(rs);
      }
    }
  }

  @Override
  public boolean isMissingTable(SQLException e) {
    return "42P01".equals(e.getSQLState());
  }

  @Override
  public boolean isMissingColumn(SQLException e) {
    return "42703".equals(e.getSQLState());
  }

  @Override
  public boolean isDenied(SQLException e) {
    return "42501".equals(e.getSQLState());
  }
}
