package dev.baton.internal.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Optional;

/**
 * The SQL of one layout over the lock table. Every statement is one round trip and runs under
 * auto-commit unless said otherwise; times are the database's. The table keeps one row per lock
 * name: {@code owner} is null while the lock is free, {@code token} only grows, {@code wanted} is set
 * by a grant attempt that the row refused and cleared by the next grant. The statements both
 * SQL families share live here, written with the fragments of {@link #family()}; a dialect holds
 * only what differs (its grant, and PostgreSQL's notify in the release's own statement).
 */
public abstract class Dialect {
  /**
   * Who asks: written into the row so that {@code holder()} can name host, pid and thread.
   * {@code yieldTo}: the token of this client's own last grant of the name, whose release another
   * asker wanted (-1 if none): while the row is still free at that token, still wanted and was
   * freed less than {@code yieldMicros} ago, the grant refuses this asker, so that the client does
   * not take the row straight back from the asker that wanted it (the table keeps no queue).
   */
  public record Asker(String owner, String host, long pid, String thread, long yieldTo, long yieldMicros) {
    public Asker(String owner, String host, long pid, String thread) {
      this(owner, host, pid, thread, -1, 0);
    }
  }

  /**
   * The outcome of a grant attempt: the token if granted, else the row's token and how long the
   * holder's row has left (a row refused by {@link Asker#yieldTo()}: how long the asker still yields).
   */
  public record Attempt(boolean granted, long token, long remainingMicros) {}

  /**
   * The outcome of a release: whether the row named the grant and is now free, and whether another
   * asker was refused the row while the grant held it ({@code wanted}): only then need the releasing
   * client hold its own next attempt back so that the other one gets in.
   */
  public record Released(boolean freed, boolean wanted) {}

  /** A lock row as read. */
  public record Row(String owner, long token, Instant acquiredAt, String host, long pid, String thread,
      boolean live) {}

  protected final String table;
  private volatile int queryTimeoutSeconds = 0;
  private final java.util.concurrent.atomic.AtomicLong statements = new java.util.concurrent.atomic.AtomicLong();

  protected Dialect(String table) {
    this.table = table;
  }

  /** The mutex in ShedLock's layout (table {@code table}, tokens in {@code fence}); null on another database. */
  public static Dialect shedLock(String product, String table, String fence) {
    String p = product.toLowerCase(java.util.Locale.ROOT);
    if (p.contains("postgres")) {
      return new ShedLockPostgresDialect(table, fence);
    }
    if (p.contains("mysql") || p.contains("mariadb")) {
      return new ShedLockMysqlDialect(table, fence);
    }
    return null;
  }

  public static Dialect forProduct(String product, String table) {
    String p = product.toLowerCase(java.util.Locale.ROOT);
    if (p.contains("postgres")) {
      return new PostgresDialect(table);
    }
    if (p.contains("mysql") || p.contains("mariadb")) {
      return new MysqlDialect(table);
    }
    return null;
  }

  /** {@code postgresql} or {@code mysql}. */
  public abstract String backend();

  /**
   * The SQL family the semaphore, read-write lock and counter tables are written in; null for a
   * layout that has no such tables (ShedLock's).
   */
  public SqlFamily family() {
    return null;
  }

  /**
   * The table of a recipe other than the mutex: the lock table's prefix (what precedes {@code lock})
   * plus {@code suffix} ({@code semaphore}, {@code rwlock}, {@code counter}).
   */
  public String recipeTable(String suffix) {
    return (table.endsWith("lock") ? table.substring(0, table.length() - 4) : "baton_") + suffix;
  }

  public String table() {
    return table;
  }

  void queryTimeout(int seconds) {
    this.queryTimeoutSeconds = seconds;
  }

  /** Statements prepared (each executed once) through this dialect: every round trip the recipes make. */
  public long statements() {
    return statements.get();
  }

  PreparedStatement prepare(Connection c, String sql) throws SQLException {
    return prepare(c, sql, java.sql.Statement.NO_GENERATED_KEYS);
  }

  /** As {@link #prepare(Connection, String)}; {@code keys}: whether the driver keeps the generated keys ({@link java.sql.Statement}). */
  PreparedStatement prepare(Connection c, String sql, int keys) throws SQLException {
    statements.incrementAndGet();
    PreparedStatement ps = c.prepareStatement(sql.replace("{T}", table), keys);
    if (queryTimeoutSeconds > 0) {
      ps.setQueryTimeout(queryTimeoutSeconds);
    }
    return ps;
  }

  /**
   * Grants the lock to {@code asker} if it is free, its holder's row has expired, or the row already
   * names {@code asker.owner()} (an earlier attempt of the same waiter whose reply was lost), bumping
   * the token each time and clearing {@code wanted}; a refused attempt sets {@code wanted}, so that
   * the holder's release tells its client to let another client in ({@link Released#wanted()}).
   */
  public abstract Attempt tryGrant(Connection c, String name, Asker asker, long ttlMicros) throws SQLException;

  /**
   * As {@link #tryGrant(Connection, String, Asker, long)}, reserving {@code reserve} tokens at once:
   * the row's token grows by {@code reserve} and the answer is the last of them, so that a client
   * that hands the lock on inside itself (local hand-over, caching) gives each of its holders the
   * next one. On PostgreSQL a refused attempt also notifies the holder's client if it caches the
   * row ({@link #CACHING_MARK} in its owner), so that it gives the row up at once.
   *
   * @throws UnsupportedOperationException in a layout that cannot reserve tokens (ShedLock's)
   */
  public Attempt tryGrant(Connection c, String name, Asker asker, long ttlMicros, long reserve, String channel)
      throws SQLException {
    if (reserve != 1) {
      throw new UnsupportedOperationException("Reserving tokens is not possible in " + getClass().getSimpleName());
    }
    return tryGrant(c, name, asker, ttlMicros);
  }

  /**
   * In the {@code thread} column of a free row: the client that freed it was refused it since, as it
   * yields ({@link Asker#yieldTo()}), and waits still; so whoever else takes the row finds it wanted
   * at once, and that holder's release lets the yielding client back in.
   */
  protected static final String YIELDING = "'(yielding)'";

  /** In an owner id: the holder caches the row, and a refused asker tells it so (PostgreSQL's notify). */
  public static final char CACHING_MARK = '~';

  /** The payload of the notify that tells a caching client another client wants {@code name}. */
  static String wantedPayload(String name) {
    return "*|" + name;
  }

  /** Whether this layout can reserve tokens for local hand-over and caching ({@link dev.baton.lock.MutexOptions}). */
  public boolean reservesTokens() {
    return family() != null;
  }

  /**
   * Extends the row while it still names this grant and has not expired; false if it does not.
   * Shared by both families: only the clock and time arithmetic differ ({@link #family()}).
   */
  public boolean renew(Connection c, String name, String owner, long token, long ttlMicros) throws SQLException {
    SqlFamily f = family();
    try (PreparedStatement ps = prepare(c, "UPDATE {T} SET expires_at = " + f.nowPlusMicros()
        + " WHERE name = ? AND owner = ? AND token = ? AND expires_at > " + f.now())) {
      ps.setLong(1, ttlMicros);
      ps.setString(2, name);
      ps.setString(3, owner);
      ps.setLong(4, token);
      return ps.executeUpdate() == 1;
    }
  }

  /** The statement that frees the row of one grant (parameters: name, owner, token). */
  protected String releaseSql() {
    return "UPDATE {T} SET owner = NULL, expires_at = " + family().now() + ", host = NULL, pid = NULL, thread = NULL"
        + " WHERE name = ? AND owner = ? AND token = ?";
  }

  /** The statement that frees the row of an owner whatever its token (parameters: name, owner). */
  protected String abandonSql() {
    return "UPDATE {T} SET owner = NULL, expires_at = " + family().now() + ", host = NULL, pid = NULL, thread = NULL"
        + " WHERE name = ? AND owner = ?";
  }

  /**
   * Frees the row if it still names this grant (and wakes waiters where the database can: a
   * dialect with notifies overrides this to send one in the same statement), and tells whether
   * another asker wanted it meanwhile.
   */
  public abstract Released release(Connection c, String name, String owner, long token, String channel,
      String payload) throws SQLException;

  /**
   * As {@link #release(Connection, String, String, long, String, String)}; {@code waiting}: this
   * client has a waiter on the name, so if the row is wanted it marks it {@link #YIELDING} (in the
   * same statement), and whoever else takes it next finds it wanted, the releasing client's want
   * recorded before any other client could take the row.
   */
  public Released release(Connection c, String name, String owner, long token, String channel, String payload,
      boolean waiting) throws SQLException {
    return release(c, name, owner, token, channel, payload);
  }

  /** Frees the row if it names {@code owner}, whatever its token: a waiter that gave up after an attempt of unknown outcome. */
  public boolean abandon(Connection c, String name, String owner, String channel, String payload)
      throws SQLException {
    try (PreparedStatement ps = prepare(c, abandonSql())) {
      ps.setString(1, name);
      ps.setString(2, owner);
      return ps.executeUpdate() == 1;
    }
  }

  /**
   * In the caller's transaction: whether the row still names this grant and has not expired,
   * locking it in share mode so that no other grant can be made until the transaction ends.
   */
  public boolean lockIfHeld(Connection c, String name, String owner, long token) throws SQLException {
    SqlFamily f = family();
    try (PreparedStatement ps = prepare(c, "SELECT 1 FROM {T} WHERE name = ? AND owner = ? AND token = ?"
        + " AND expires_at > " + f.now() + " " + f.forShare())) {
      ps.setString(1, name);
      ps.setString(2, owner);
      ps.setLong(3, token);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  public Optional<Row> read(Connection c, String name) throws SQLException {
    try (PreparedStatement ps = prepare(c, "SELECT owner, token, acquired_at, host, pid, thread,"
        + " owner IS NOT NULL AND expires_at > " + family().now() + " FROM {T} WHERE name = ?")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        return row(rs);
      }
    }
  }

  /** The columns every statement uses: a query that fails if one is missing. */
  public String probe() {
    return "SELECT name, owner, token, expires_at, acquired_at, host, pid, thread, wanted FROM " + table
        + " WHERE 1 = 0";
  }

  /** A write that touches no row: fails if the user may not update the table. */
  public String writeProbe() {
    return "UPDATE " + table + " SET token = token WHERE 1 = 0";
  }

  /** What is wrong with the columns {@link #probe()} read, or null if nothing. */
  public String shapeProblem(java.sql.ResultSetMetaData md) throws SQLException {
    int token = md.getColumnType(3);
    int expires = md.getColumnType(4);
    if (token == java.sql.Types.BIGINT
        && (expires == java.sql.Types.TIMESTAMP || expires == java.sql.Types.TIMESTAMP_WITH_TIMEZONE)) {
      return null;
    }
    return "token is " + md.getColumnTypeName(3) + " (want BIGINT), expires_at is " + md.getColumnTypeName(4)
        + " (want a timestamp)";
  }

  /** The longest lock name the table takes. */
  public int maxNameLength() {
    return 255;
  }

  /** Whether other programs write the lock rows without telling waiters (no notify): waiters then re-check on a back-off. */
  public boolean foreignWriters() {
    return false;
  }

  /** The SQL file in the jar that {@link #ddl()} reads. */
  protected String ddlResource() {
    return "/dev/baton/jdbc/" + backend() + ".sql";
  }

  /** Replaces the default table names of the SQL file with this client's. */
  protected String names(String sql) {
    return sql.replace("baton_lock", table).replace("baton_semaphore", recipeTable("semaphore"))
        .replace("baton_rwlock", recipeTable("rwlock")).replace("baton_counter", recipeTable("counter"));
  }

  /** The DDL to create the tables, from the plain SQL file in the jar, with this client's table names. */
  public String ddl() {
    String resource = ddlResource();
    try (InputStream in = Dialect.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(resource + " is missing from the baton-jdbc jar");
      }
      return names(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IllegalStateException("Cannot read " + resource, e);
    }
  }

  /** The DDL without its comments, one statement per element. */
  public java.util.List<String> createStatements() {
    StringBuilder sb = new StringBuilder();
    for (String line : ddl().split("\n")) {
      if (!line.startsWith("--")) {
        sb.append(line).append('\n');
      }
    }
    java.util.List<String> out = new java.util.ArrayList<>();
    for (String statement : sb.toString().split(";")) {
      if (!statement.isBlank()) {
        out.add(statement.trim());
      }
    }
    return out;
  }

  /**
   * The SQL family this layout's statements are written in, whether or not it offers the recipes'
   * tables ({@link #family()} is null in ShedLock's layout, which still speaks one family).
   */
  protected SqlFamily sqlFamily() {
    return family();
  }

  public boolean isMissingTable(SQLException e) {
    return sqlFamily().isMissingTable(e);
  }

  public boolean isMissingColumn(SQLException e) {
    return sqlFamily().isMissingColumn(e);
  }

  public boolean isDenied(SQLException e) {
    return sqlFamily().isDenied(e);
  }

  protected static Optional<Row> row(ResultSet rs) throws SQLException {
    if (!rs.next()) {
      return Optional.empty();
    }
    // Stored in UTC (timestamptz on PostgreSQL, UTC_TIMESTAMP on MySQL): read as such, whatever the JVM's zone.
    java.sql.Timestamp acquired = rs.getTimestamp(3, java.util.Calendar.getInstance(java.util.TimeZone.getTimeZone("UTC")));
    return Optional.of(new Row(rs.getString(1), rs.getLong(2), acquired == null ? null : acquired.toInstant(),
        rs.getString(4), rs.getLong(5), rs.getString(6), rs.getBoolean(7)));
  }
}
