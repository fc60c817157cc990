package dev.baton.internal.jdbc;

import dev.baton.ConnectionException;
import dev.baton.OutcomeUnknownException;
import dev.baton.atomic.Counter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * A counter on one row of the counter table ({@code name, value}); a missing row is 0. Every update
 * is a single statement that the database applies atomically to the row, so updates of any number
 * of threads and clients are never lost: {@code addAndGet} is one upsert adding to the row's value;
 * {@code compareAndExchange} one conditional {@code UPDATE ... WHERE value = expect} (plus a read
 * when it did not apply, to say what the value is). Reads see every committed update.
 *
 * <p>Connection loss: an update is never sent twice. If no connection could be had, nothing was
 * sent and a {@link ConnectionException} says so; if the connection failed after the statement was
 * sent, the database may have applied it, and an {@link OutcomeUnknownException} says so.
 */
public final class JdbcCounter implements Counter {
  private final JdbcSession session;
  private final String table;
  private final String name;

  public JdbcCounter(JdbcSession session, String table, String name) {
    this.session = session;
    this.table = table;
    this.name = name;
  }

  @Override
  public String path() {
    return name;
  }

  @Override
  public long get() {
    session.checkOpen();
    try {
      long value = session.run(this::read);
      session.succeeded();
      return value;
    } catch (SQLException e) {
      session.failed(e);
      throw session.error("reading the counter " + name, e);
    }
  }

  /** The row's value, 0 if it has none. */
  private long read(Connection c) throws SQLException {
    Long value = readOrNull(c);
    return value == null ? 0 : value;
  }

  private Long readOrNull(Connection c) throws SQLException {
    try (PreparedStatement ps = session.dialect().prepare(c, "SELECT value FROM " + table + " WHERE name = ?")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : null;
      }
    }
  }

  @Override
  public void set(long value) {
    // Safe to repeat: one more try after a connection failure, whatever happened to the first.
    for (int attempt = 0; ; attempt++) {
      try {
        write("setting the counter " + name, c -> {
          try (PreparedStatement ps = session.dialect().prepare(c, session.dialect().family().upsertValue(table))) {
            ps.setString(1, name);
            ps.setLong(2, value);
            ps.executeUpdate();
          }
          return null;
        });
        return;
      } catch (ConnectionException e) {
        if (attempt >= 1) {
          throw e;
        }
      }
    }
  }

  @Override
  public long compareAndExchange(long expect, long update) {
    return write("compare-and-set on the counter " + name, c -> {
      while (true) {
        try (PreparedStatement ps = session.dialect().prepare(c, "UPDATE " + table + " SET value = ? WHERE name = ? AND value = ?")) {
          ps.setLong(1, update);
          ps.setString(2, name);
          ps.setLong(3, expect);
          if (ps.executeUpdate() == 1) {
            return expect;
          }
        }
        Long seen = readOrNull(c);
        if (seen == null) {
          if (expect != 0) {
            return 0L; // no row: the value is 0, not what the caller expects
          }
          try (PreparedStatement ps = session.dialect().prepare(c, session.dialect().family().insertIgnore(
              table + " (name, value)", "?, ?"))) {
            ps.setString(1, name);
            ps.setLong(2, update);
            if (ps.executeUpdate() == 1) {
              return 0L;
            }
          }
          continue; // another client made the row meanwhile: compare again
        }
        if (seen != expect) {
          return seen;
        }
        // The value was changed away and back between the two statements: compare again.
      }
    });
  }

  @Override
  public long addAndGet(long delta) {
    return write("adding " + delta + " to the counter " + name,
        c -> session.dialect().family().add(session.dialect(), c, table, name, delta));
  }

  /** Runs an update on a connection of its own, telling "not sent" from "sent, outcome unknown". */
  private <T> T write(String doing, JdbcSession.SqlFn<T> work) {
    session.checkOpen();
    Connection c;
    try {
      c = session.dataSource().getConnection();
    } catch (SQLException e) {
      session.failed(e);
      throw session.error(doing, e); // nothing was sent
    }
    try (c) {
      boolean autoCommit = c.getAutoCommit();
      if (!autoCommit) {
        c.setAutoCommit(true); // a pool that hands out connections in a transaction: each statement commits by itself
      }
      try {
        T result = work.apply(c);
        session.succeeded();
        return result;
      } finally {
        if (!autoCommit) {
          c.setAutoCommit(false);
        }
      }
    } catch (SQLException e) {
      session.failed(e);
      if (SqlFamily.isOutOfRange(e)) {
        throw new ArithmeticException("The counter " + name + " in " + table + " would overflow a long: " + doing
            + " was refused by the database and nothing was written (" + e.getMessage() + ")");
      }
      if (JdbcSession.isConnectionFailure(e)) {
        throw new OutcomeUnknownException(name, "Lost the connection to " + session.settings().describe() + " while "
            + doing + ", after the statement was sent: the database may or may not have applied it, and it was not"
            + " sent again. Read the counter to decide what to do (" + e.getMessage() + ")", e);
      }
      throw session.error(doing, e);
    }
  }

  @Override
  public String toString() {
    return "JdbcCounter[" + name + " on " + session.settings().describe() + "]";
  }
}
