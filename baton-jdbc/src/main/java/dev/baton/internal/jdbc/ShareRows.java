package dev.baton.internal.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Calendar;
import java.util.Collection;
import java.util.List;
import java.util.TimeZone;

/**
 * The statements of a table of shared leases (the semaphore's, the read-write lock's): one row per
 * lease ({@code granted}), per registered waiter (not {@code granted}: the read-write lock's, so that
 * waiting writers keep later readers of every client out), and one header row per name ({@code
 * owner = ''}) holding the name's fencing counter.
 *
 * <p>A grant is one transaction that first locks the header row ({@code SELECT ... FOR UPDATE}), so
 * grants of one name are serialized whatever the isolation level: the count of permits or the
 * check for a writer cannot be raced by another client. It then drops the rows whose time is up
 * (by the database's clock), reads the rest, decides in Java by the recipe's {@link Rule}, and on
 * a grant bumps the header's token and writes the lease's row. Renewal, release and reads touch
 * single rows and take no header lock. Every transaction here runs at READ COMMITTED ({@link
 * SqlFamily#readCommittedNext}), so that it locks only the rows it changes and never holds a live
 * lease's renewal back.
 */
final class ShareRows {
  private static final String COLUMNS = "owner, kind, permits, granted, token, %s, acquired_at, host, pid, thread";

  /** A lease or waiter row as read, with the microseconds it has left by the database's clock. */
  record Live(String owner, char kind, int permits, boolean granted, long token, long remainingMicros,
      Instant acquiredAt, String host, long pid, String thread) {}

  /** What one waiter asks for: its owner id (the same for every attempt), kind ({@code S}, {@code R}, {@code W}) and permits. */
  record Request(String owner, char kind, int permits, Dialect.Asker asker) {}

  /** Whether {@code want} may be granted beside {@code others} (every live row of the name but its own). */
  @FunctionalInterface
  interface Rule {
    boolean grantable(List<Live> others, Request want);
  }

  private final JdbcSession session;
  private final Dialect dialect;
  private final SqlFamily sql;
  private final String table;

  ShareRows(JdbcSession session, String table) {
    this.session = session;
    this.dialect = session.dialect();
    this.sql = dialect.family();
    this.table = table;
  }

  String table() {
    return table;
  }

  /**
   * One grant attempt for {@code want} (null: only the upkeep below), in one transaction: withdraws
   * the waiter rows of {@code withdraw} (waiters that gave up), registers {@code register} as
   * waiters, extends the waiter rows of this client ({@code refreshLike}, a LIKE pattern of its
   * owner ids; null for none), and grants {@code want} if {@code rule} allows. A row already granted
   * to {@code want.owner()} (an earlier attempt whose reply was lost) is granted again, token and all.
   */
  Dialect.Attempt tryGrant(Connection c, String name, Request want, Rule rule, Collection<Request> register,
      Collection<String> withdraw, String refreshLike, long ttlMicros) throws SQLException {
    int deadlocks = 0;
    for (int round = 0; round < 2; round++) {
      Dialect.Attempt attempt;
      try {
        attempt = inTransaction(c, () -> {
          long header = lockHeader(c, name);
          if (header < 0) {
            return null;
          }
          boolean wake = false;
          for (String owner : withdraw) {
            wake |= delete(c, name, owner) > 0;
          }
          try (PreparedStatement ps = dialect.prepare(c, "DELETE FROM " + table + " WHERE name = ? AND owner <> ''"
              + " AND expires_at <= " + sql.now())) {
            ps.setString(1, name);
            ps.executeUpdate();
          }
          for (Request r : register) {
            try (PreparedStatement ps = dialect.prepare(c, sql.insertIgnore(table
                + " (name, owner, kind, permits, granted, token, expires_at, acquired_at, host, pid, thread)",
                "?, ?, ?, ?, FALSE, 0, " + sql.nowPlusMicros() + ", " + sql.now() + ", ?, ?, ?"))) {
              ps.setString(1, name);
              ps.setString(2, r.owner());
              ps.setString(3, String.valueOf(r.kind()));
              ps.setInt(4, r.permits());
              ps.setLong(5, ttlMicros);
              ps.setString(6, r.asker().host());
              ps.setLong(7, r.asker().pid());
              ps.setString(8, r.asker().thread());
              ps.executeUpdate();
            }
          }
          if (refreshLike != null) {
            try (PreparedStatement ps = dialect.prepare(c, "UPDATE " + table + " SET expires_at = " + sql.nowPlusMicros()
                + " WHERE name = ? AND owner LIKE ? AND granted = FALSE")) {
              ps.setLong(1, ttlMicros);
              ps.setString(2, name);
              ps.setString(3, refreshLike);
              ps.executeUpdate();
            }
          }
          if (wake) {
            sql.notify(dialect, c, session.channel(), session.notifyPayload(key(name)));
          }
          if (want == null) {
            return new Dialect.Attempt(false, 0, 0);
          }
          List<Live> others = new ArrayList<>();
          Live mine = null;
          for (Live l : live(c, name, false)) {
            if (l.owner().equals(want.owner())) {
              mine = l;
            } else {
              others.add(l);
            }
          }
          if (mine != null && mine.granted()) {
            return new Dialect.Attempt(true, mine.token(), 0);
          }
          if (!rule.grantable(others, want)) {
            long remaining = others.stream().mapToLong(Live::remainingMicros).min().orElse(0);
            return new Dialect.Attempt(false, 0, Math.max(0, remaining));
          }
          long token = header + 1;
          try (PreparedStatement ps = dialect.prepare(c, "UPDATE " + table + " SET token = ? WHERE name = ? AND owner = ''")) {
            ps.setLong(1, token);
            ps.setString(2, name);
            ps.executeUpdate();
          }
          if (mine != null) {
            try (PreparedStatement ps = dialect.prepare(c, "UPDATE " + table + " SET kind = ?, permits = ?, granted = TRUE,"
                + " token = ?, expires_at = " + sql.nowPlusMicros() + ", acquired_at = " + sql.now()
                + ", host = ?, pid = ?, thread = ? WHERE name = ? AND owner = ?")) {
              ps.setString(1, String.valueOf(want.kind()));
              ps.setInt(2, want.permits());
              ps.setLong(3, token);
              ps.setLong(4, ttlMicros);
              ps.setString(5, want.asker().host());
              ps.setLong(6, want.asker().pid());
              ps.setString(7, want.asker().thread());
              ps.setString(8, name);
              ps.setString(9, want.owner());
              ps.executeUpdate();
            }
          } else {
            insertGranted(c, name, want, token, ttlMicros);
          }
          return new Dialect.Attempt(true, token, 0);
        });
      } catch (SQLException e) {
        // The database broke a deadlock (or a serialization conflict) by rolling this transaction
        // back: nothing of it was applied, so it is safe to run again at once.
        if (isRolledBack(e) && deadlocks++ < 3) {
          round--;
          continue;
        }
        throw e;
      }
      if (attempt != null) {
        return attempt;
      }
      try (PreparedStatement ps = dialect.prepare(c, sql.insertIgnore(table
          + " (name, owner, kind, permits, granted, token, expires_at)", "?, '', '#', 0, TRUE, 0, " + sql.now()))) {
        ps.setString(1, name); // first use of this name: its header row, in a statement of its own
        ps.executeUpdate();
      }
    }
    return new Dialect.Attempt(false, 0, 0);
  }

  /**
   * Adds a lease {@code want} with the token of the grant {@code (owner, token)}, if that grant's
   * row is still live: the read-write lock's downgrade, checked and written in one transaction.
   */
  boolean grantBeside(Connection c, String name, String owner, long token, Request want, long ttlMicros)
      throws SQLException {
    return inTransaction(c, () -> {
      if (lockHeader(c, name) < 0 || !isLive(c, name, owner, token, "FOR UPDATE")) {
        return false;
      }
      insertGranted(c, name, want, token, ttlMicros);
      return true;
    });
  }

  private void insertGranted(Connection c, String name, Request want, long token, long ttlMicros) throws SQLException {
    try (PreparedStatement ps = dialect.prepare(c, "INSERT INTO " + table
        + " (name, owner, kind, permits, granted, token, expires_at, acquired_at, host, pid, thread)"
        + " VALUES (?, ?, ?, ?, TRUE, ?, " + sql.nowPlusMicros() + ", " + sql.now() + ", ?, ?, ?)")) {
      ps.setString(1, name);
      ps.setString(2, want.owner());
      ps.setString(3, String.valueOf(want.kind()));
      ps.setInt(4, want.permits());
      ps.setLong(5, token);
      ps.setLong(6, ttlMicros);
      ps.setString(7, want.asker().host());
      ps.setLong(8, want.asker().pid());
      ps.setString(9, want.asker().thread());
      ps.executeUpdate();
    }
  }

  /** A deadlock victim or serialization failure (PostgreSQL 40P01/40001, MySQL 1213/40001): rolled back whole. */
  static boolean isRolledBack(SQLException e) {
    String state = e.getSQLState();
    return "40001".equals(state) || "40P01".equals(state) || e.getErrorCode() == 1213;
  }

  /** The header's token, the header row locked until the transaction ends; -1 if the name has no header yet. */
  private long lockHeader(Connection c, String name) throws SQLException {
    try (PreparedStatement ps = dialect.prepare(c, "SELECT token FROM " + table + " WHERE name = ? AND owner = '' FOR UPDATE")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : -1;
      }
    }
  }

  private boolean isLive(Connection c, String name, String owner, long token, String lock) throws SQLException {
    try (PreparedStatement ps = dialect.prepare(c, "SELECT 1 FROM " + table + " WHERE name = ? AND owner = ? AND token = ?"
        + " AND granted = TRUE AND expires_at > " + sql.now() + " " + lock)) {
      ps.setString(1, name);
      ps.setString(2, owner);
      ps.setLong(3, token);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  private int delete(Connection c, String name, String owner) throws SQLException {
    try (PreparedStatement ps = dialect.prepare(c, "DELETE FROM " + table + " WHERE name = ? AND owner = ?")) {
      ps.setString(1, name);
      ps.setString(2, owner);
      return ps.executeUpdate();
    }
  }

  /** Every live row of {@code name} (granted ones only if {@code grantedOnly}), oldest token first, then oldest waiter. */
  List<Live> live(Connection c, String name, boolean grantedOnly) throws SQLException {
    List<Live> rows = new ArrayList<>();
    try (PreparedStatement ps = dialect.prepare(c, "SELECT " + String.format(COLUMNS, sql.microsUntil("expires_at"))
        + " FROM " + table + " WHERE name = ? AND owner <> '' AND expires_at > " + sql.now()
        + (grantedOnly ? " AND granted = TRUE" : "") + " ORDER BY granted DESC, token, acquired_at")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          Timestamp at = rs.getTimestamp(7, Calendar.getInstance(TimeZone.getTimeZone("UTC")));
          rows.add(new Live(rs.getString(1), rs.getString(2).charAt(0), rs.getInt(3), rs.getBoolean(4), rs.getLong(5),
              rs.getLong(6), at == null ? null : at.toInstant(), rs.getString(8), rs.getLong(9), rs.getString(10)));
        }
      }
    }
    return rows;
  }

  /** Deletes every row of {@code owner} (a waiter that gave up after an attempt of unknown outcome), waking waiters. */
  void abandon(Connection c, String name, String owner) throws SQLException {
    inTransaction(c, () -> {
      if (delete(c, name, owner) > 0) {
        sql.notify(dialect, c, session.channel(), session.notifyPayload(key(name)));
      }
      return null;
    });
  }

  /** The statements on the row of one grant, for its {@link JdbcHold}. */
  JdbcHold.RowOps ops(String name, String owner, long token) {
    return new JdbcHold.RowOps() {
      @Override
      public boolean renew(Connection c, long ttlMicros) throws SQLException {
        try (PreparedStatement ps = dialect.prepare(c, "UPDATE " + table + " SET expires_at = " + sql.nowPlusMicros()
            + " WHERE name = ? AND owner = ? AND token = ? AND granted = TRUE AND expires_at > " + sql.now())) {
          ps.setLong(1, ttlMicros);
          ps.setString(2, name);
          ps.setString(3, owner);
          ps.setLong(4, token);
          return ps.executeUpdate() == 1;
        }
      }

      @Override
      public boolean free(Connection c) throws SQLException {
        inTransaction(c, () -> {
          try (PreparedStatement ps = dialect.prepare(c, "DELETE FROM " + table
              + " WHERE name = ? AND owner = ? AND token = ?")) {
            ps.setString(1, name);
            ps.setString(2, owner);
            ps.setLong(3, token);
            if (ps.executeUpdate() > 0) {
              sql.notify(dialect, c, session.channel(), session.notifyPayload(key(name)));
            }
          }
          return null;
        });
        return true; // the table does not tell whether anyone waits: this client yields every time
      }

      @Override
      public boolean lockIfHeld(Connection c) throws SQLException {
        return isLive(c, name, owner, token, sql.forShare());
      }
    };
  }

  /** The key of this client's queue for {@code name} in this table: its waiters, and the payload of its wake-ups. */
  String key(String name) {
    // A control character cannot start a lock name (names refuse them), so keys never meet a mutex's name.
    return "\u0001" + table + "|" + name;
  }

  private <T> T inTransaction(Connection c, JdbcSession.SqlFn0<T> work) throws SQLException {
    c.setAutoCommit(false);
    try {
      sql.readCommittedNext(dialect, c);
      T result = work.apply();
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
        c.setAutoCommit(true);
      } catch (SQLException ignored) {
        // a broken connection: the pool drops it
      }
    }
  }
}
