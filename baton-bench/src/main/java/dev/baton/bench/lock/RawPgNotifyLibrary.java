package dev.baton.bench.lock;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The floor of the PostgreSQL rows: a lock that waits with {@code LISTEN}/{@code NOTIFY}, written
 * by hand on plain JDBC with the least any such lock does. Acquire is one upsert that takes the row
 * only if it is free; a refused client marks the row wanted (one statement more) and waits for the
 * next notify on a listening connection of its own; release frees the row and, if it was wanted,
 * notifies in the same statement. No fencing token, no expiry, no renewal, no fairness, no pool:
 * its uncontended cycle is two statements, and its hand-over (the release's commit, the notify's
 * delivery, the next grant) bounds what a lock that waits this way can do on this server.
 */
public final class RawPgNotifyLibrary implements LockLibrary {
  private static final String CHANNEL = "raw_pg_lock";
  private static final String DDL = "CREATE TABLE IF NOT EXISTS raw_pg_lock(name TEXT PRIMARY KEY, owner TEXT,"
      + " wanted BOOLEAN NOT NULL DEFAULT false)";
  private static final String GRANT = "INSERT INTO raw_pg_lock AS l (name, owner) VALUES (?, ?)"
      + " ON CONFLICT (name) DO UPDATE SET owner = EXCLUDED.owner, wanted = false WHERE l.owner IS NULL RETURNING 1";
  /** Marks a held row wanted; no row: it was freed meanwhile, so try again at once. */
  private static final String MARK = "UPDATE raw_pg_lock SET wanted = true WHERE name = ? AND owner IS NOT NULL"
      + " AND ? IS NOT NULL RETURNING 1";
  /** Leaves {@code wanted} as it is (the next grant clears it), so that it can return it. */
  private static final String RELEASE = "WITH r AS (UPDATE raw_pg_lock SET owner = NULL WHERE name = ? AND owner = ?"
      + " RETURNING wanted, name) SELECT CASE WHEN wanted THEN (SELECT 1 FROM pg_notify('" + CHANNEL + "', name)) END FROM r";

  @Override
  public boolean onJdbc() {
    return true;
  }

  @Override
  public LockClient connect(String url) throws Exception {
    Connection statements = DriverManager.getConnection(url);
    try (Statement s = statements.createStatement()) {
      s.execute(DDL);
    }
    Connection listening = DriverManager.getConnection(url);
    try (Statement s = listening.createStatement()) {
      s.execute("LISTEN " + CHANNEL);
    }
    Notices notices = new Notices(listening);
    notices.start();
    return new LockClient() {
      @Override
      public BenchLock lock(String path) {
        return () -> {
          String owner = UUID.randomUUID().toString();
          while (true) {
            long seen = notices.heard();
            if (run(statements, GRANT, path, owner)) {
              return () -> run(statements, RELEASE, path, owner);
            }
            if (run(statements, MARK, path, owner)) {
              notices.awaitAfter(seen);
            }
          }
        };
      }

      @Override
      public void roundTrip(String path) throws Exception {
        run(statements, "SELECT count(*) FROM raw_pg_lock WHERE name = ? AND ? IS NOT NULL", path, "");
      }

      @Override
      public void close() {
        notices.interrupt();
        try {
          notices.join(2_000);
          statements.close();
          listening.close();
        } catch (SQLException | InterruptedException e) {
          throw new IllegalStateException(e);
        }
      }
    };
  }

  /** Runs one statement of two parameters: whether it returned a row. */
  private static boolean run(Connection c, String sql, String name, String owner) throws SQLException {
    synchronized (c) {
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setString(1, name);
        ps.setString(2, owner);
        try (ResultSet rs = ps.executeQuery()) {
          return rs.next();
        }
      }
    }
  }

  /** The listening connection's thread: counts the notifies heard and wakes the waiters. */
  private static final class Notices extends Thread {
    private final PGConnection connection;
    private long heard; // guarded by this

    Notices(Connection listening) throws SQLException {
      super("raw-pg-listen");
      setDaemon(true);
      this.connection = listening.unwrap(PGConnection.class);
    }

    synchronized long heard() {
      return heard;
    }

    /** Waits until a notify comes after the count {@code seen} was read. */
    synchronized void awaitAfter(long seen) throws InterruptedException {
      while (heard == seen) {
        wait();
      }
    }

    @Override
    public void run() {
      try {
        while (!isInterrupted()) {
          PGNotification[] notes = connection.getNotifications(200);
          if (notes != null && notes.length > 0) {
            synchronized (this) {
              heard++;
              notifyAll();
            }
          }
        }
      } catch (SQLException e) {
        // the client closed its connection
      }
    }
  }
}
