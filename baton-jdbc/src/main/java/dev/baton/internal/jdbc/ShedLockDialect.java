package dev.baton.internal.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.util.Optional;

/**
 * The mutex in ShedLock's table layout ({@code name, lock_until, locked_at, locked_by}), so that a
 * Baton mutex and ShedLock's {@code JdbcTemplateLockProvider} (configured {@code usingDbTime()})
 * exclude each other on the same rows. The rules are ShedLock's: a row is free when {@code
 * lock_until <= now}, by the database's clock in UTC written as ShedLock's own statements write it
 * ({@link #now()}); {@code locked_by} names the holder (here the grant's owner id and host). The
 * fencing token, which the layout has no column for, is bumped in a table of Baton's own ({@code
 * baton_fence}) in the grant's own statement or transaction. ShedLock does not notify, so waiters
 * re-check on a back-off bounded by the holder's {@code lock_until}.
 *
 * <p>What both SQL families share lives here; a subclass holds its grant and its clock.
 */
abstract class ShedLockDialect extends Dialect {
  protected final String fence;
  private final SqlFamily family;

  ShedLockDialect(String table, String fence, SqlFamily family) {
    super(table);
    this.fence = fence;
    this.family = family;
  }

  /** The database's clock in UTC, as a timestamp without zone, exactly as ShedLock's statements read it. */
  protected abstract String now();

  /** {@link #now()} plus {@code ?} microseconds (one parameter). */
  protected abstract String nowPlusMicros();

  /** ShedLock's layout offers no recipe tables ({@link #family()} is null) but is written in one family. */
  @Override
  protected SqlFamily sqlFamily() {
    return family;
  }

  @Override
  protected String ddlResource() {
    return "/dev/baton/jdbc/shedlock-" + backend() + ".sql";
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

  protected static String lockedBy(Asker asker) {
    String s = asker.owner() + "@" + asker.host();
    return s.length() > 255 ? s.substring(0, 255) : s;
  }

  /** The {@code locked_by} a grant wrote is its owner id (a UUID, a dash, digits), then {@code @host}: matched by prefix. */
  protected static String ownerPattern(String owner) {
    return owner + "@%";
  }

  @Override
  public boolean renew(Connection c, String name, String owner, long token, long ttlMicros) throws SQLException {
    try (PreparedStatement ps = prepare(c, "UPDATE {T} SET lock_until = " + nowPlusMicros()
        + " WHERE name = ? AND locked_by LIKE ? AND lock_until > " + now())) {
      ps.setLong(1, ttlMicros);
      ps.setString(2, name);
      ps.setString(3, ownerPattern(owner));
      return ps.executeUpdate() == 1;
    }
  }

  /**
   * The token is not in ShedLock's row: a grant is told apart by its owner alone. ShedLock's table
   * has no column to mark a row wanted either: every release counts as wanted, so its client always
   * yields.
   */
  @Override
  public Released release(Connection c, String name, String owner, long token, String channel, String payload)
      throws SQLException {
    return new Released(abandon(c, name, owner, channel, payload), true);
  }

  /** The statement that frees the row of an owner, as ShedLock's unlock does (parameters: name, owner pattern). */
  protected String freeSql() {
    return "UPDATE {T} SET lock_until = " + now() + " WHERE name = ? AND locked_by LIKE ?";
  }

  @Override
  public boolean abandon(Connection c, String name, String owner, String channel, String payload)
      throws SQLException {
    boolean freed;
    try (PreparedStatement ps = prepare(c, freeSql())) {
      ps.setString(1, name);
      ps.setString(2, ownerPattern(owner));
      freed = ps.executeUpdate() == 1;
    }
    if (freed) {
      family.notify(this, c, channel, payload);
    }
    return freed;
  }

  @Override
  public boolean lockIfHeld(Connection c, String name, String owner, long token) throws SQLException {
    try (PreparedStatement ps = prepare(c, "SELECT 1 FROM {T} WHERE name = ? AND locked_by LIKE ? AND lock_until > "
        + now() + " " + family.forShare())) {
      ps.setString(1, name);
      ps.setString(2, ownerPattern(owner));
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  /** The row and its token; {@code locked_at} is UTC without zone, read as UTC by {@link #row}. */
  @Override
  public Optional<Row> read(Connection c, String name) throws SQLException {
    try (PreparedStatement ps = prepare(c, "SELECT s.locked_by, coalesce(f.token, 0), s.locked_at,"
        + " s.locked_by, 0, '', s.lock_until > " + now() + " FROM {T} s LEFT JOIN " + fence
        + " f ON f.name = s.name WHERE s.name = ?")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        return row(rs);
      }
    }
  }
}
