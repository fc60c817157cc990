package dev.baton.internal.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.util.Optional;

/**
 * The mutex in ShedLock's table layout ({@code name, lock_until, locked_at, locked_by}) on
 * PostgreSQL, so that a Baton mutex and ShedLock's {@code JdbcTemplateLockProvider} (configured
 * {@code usingDbTime()}) exclude each other on the same rows. The rules are ShedLock's: a row is
 * free when {@code lock_until <= now}, in UTC by the database's clock; {@code locked_by} names the
 * holder (here the grant's owner id and host). The fencing token, which the layout has no column
 * for, is bumped in a table of Baton's own ({@code baton_fence}) in the grant's own statement. ShedLock
 * does not notify, so waiters re-check on a back-off bounded by the holder's {@code lock_until}.
 */
final class ShedLockPostgresDialect extends Dialect {
  private static final String NOW = "timezone('utc', CURRENT_TIMESTAMP)";
  private final String fence;

  ShedLockPostgresDialect(String table, String fence) {
    super(table);
    this.fence = fence;
  }

  @Override
  public String backend() {
    return "postgresql";
  }

  @Override
  protected String ddlResource() {
    return "/dev/baton/jdbc/shedlock-postgresql.sql";
  }

  @Override
  protected String names(String sql) {
    return sql.replace("shedlock (", table + " (").replace("baton_fence", fence);
  }

  @Override
  public int maxNameLength() {
    return 64;
  }

  @Override
  public boolean foreignWriters() {
    return true;
  }

  @Override
  public String probe() {
    return "SELECT name, lock_until, locked_at, locked_by FROM " + table + " WHERE 1 = 0";
  }

  @Override
  public String writeProbe() {
    return "UPDATE " + table + " SET lock_until = lock_until WHERE 1 = 0";
  }

  @Override
  public String shapeProblem(ResultSetMetaData md) throws SQLException {
    int until = md.getColumnType(2);
    if (until == Types.TIMESTAMP) {
      return null;
    }
    return "lock_until is " + md.getColumnTypeName(2) + " (want TIMESTAMP, UTC, as ShedLock creates it)";
  }

  private static String lockedBy(Asker asker) {
    return lockedBy(asker.owner(), asker.host());
  }

  private static String lockedBy(String owner, String host) {
    String s = owner + "@" + host;
    return s.length() > 255 ? s.substring(0, 255) : s;
  }

  /** The {@code locked_by} a grant wrote is its owner id (a UUID, a dash, digits), then {@code @host}: matched by prefix. */
  private static String ownerPattern(String owner) {
    return owner + "@%";
  }

  @Override
  public Attempt tryGrant(Connection c, String name, Asker asker, long ttlMicros) throws SQLException {
    String sql = "WITH g AS ("
        + " INSERT INTO {T} AS l (name, lock_until, locked_at, locked_by)"
        + " VALUES (?, " + NOW + " + ?::bigint * interval '1 microsecond', " + NOW + ", ?)"
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

  @Override
  public boolean renew(Connection c, String name, String owner, long token, long ttlMicros) throws SQLException {
    try (PreparedStatement ps = prepare(c, "UPDATE {T} SET lock_until = " + NOW
        + " + ?::bigint * interval '1 microsecond' WHERE name = ? AND locked_by LIKE ? AND lock_until > " + NOW)) {
      ps.setLong(1, ttlMicros);
      ps.setString(2, name);
      ps.setString(3, ownerPattern(owner));
      return ps.executeUpdate() == 1;
    }
  }

  /** ShedLock's table has no column to mark a row wanted: every release counts as wanted, so its client always yields. */
  @Override
  public Released release(Connection c, String name, String owner, long token, String channel, String payload)
      throws SQLException {
    return new Released(abandon(c, name, owner, channel, payload), true);
  }

  @Override
  public boolean abandon(Connection c, String name, String owner, String channel, String payload)
      throws SQLException {
    try (PreparedStatement ps = prepare(c, "WITH r AS (UPDATE {T} SET lock_until = " + NOW
        + " WHERE name = ? AND locked_by LIKE ? RETURNING name) SELECT pg_notify(?, ?) FROM r")) {
      ps.setString(1, name);
      ps.setString(2, ownerPattern(owner));
      ps.setString(3, channel);
      ps.setString(4, payload);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  @Override
  public boolean lockIfHeld(Connection c, String name, String owner, long token) throws SQLException {
    try (PreparedStatement ps = prepare(c, "SELECT 1 FROM {T} WHERE name = ? AND locked_by LIKE ? AND lock_until > "
        + NOW + " FOR SHARE")) {
      ps.setString(1, name);
      ps.setString(2, ownerPattern(owner));
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  @Override
  public Optional<Row> read(Connection c, String name) throws SQLException {
    try (PreparedStatement ps = prepare(c, "SELECT s.locked_by, coalesce(f.token, 0), s.locked_at AT TIME ZONE 'UTC',"
        + " s.locked_by, 0, '', s.lock_until > " + NOW + " FROM {T} s LEFT JOIN " + fence
        + " f ON f.name = s.name WHERE s.name = ?")) {
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
