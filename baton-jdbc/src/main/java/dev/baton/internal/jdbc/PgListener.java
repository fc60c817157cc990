package dev.baton.internal.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection per client that {@code LISTEN}s on the lock table's channel, on a thread of its
 * own, and wakes this client's queue for each name another client releases. When the connection
 * drops, waiters fall back to re-checking on a back-off; once it is back, every queue checks once
 * (a release may have been missed meanwhile).
 */
final class PgListener {
  private static final Logger log = LoggerFactory.getLogger(PgListener.class);
  private static final int POLL_MILLIS = 500;

  private final JdbcSession session;
  private final Thread thread;
  private final Object pause = new Object();
  private volatile boolean listening;
  private volatile boolean closed;
  private volatile Connection connection;

  PgListener(JdbcSession session) {
    this.session = session;
    PGConnection.class.getName(); // fails here, not on the thread, when the driver's API is not visible
    this.thread = new Thread(this::loop, "baton-jdbc-listen");
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  boolean isListening() {
    return listening;
  }

  private void loop() {
    long backoff = 50;
    while (!closed) {
      try (Connection c = session.dataSource().getConnection()) {
        connection = c;
        try (Statement s = c.createStatement()) {
          s.execute("LISTEN " + session.channel());
        }
        PGConnection pg = c.unwrap(PGConnection.class);
        listening = true;
        backoff = 50;
        session.listeningResumed();
        while (!closed) {
          PGNotification[] notes = pg.getNotifications(POLL_MILLIS);
          if (notes != null) {
            for (PGNotification n : notes) {
              session.heard(n.getParameter());
            }
          }
        }
      } catch (SQLException | RuntimeException e) {
        if (!closed) {
          log.debug("The listening connection of {} failed: {}", session.settings().describe(), e.toString());
          // The server went away (a restart, a cut link): no lease is vouched for until a renewal
          // succeeds again, however recent the last one was.
          session.failed(e);
        }
      } finally {
        listening = false;
        connection = null;
      }
      if (!closed) {
        session.listeningResumed(); // waiters now re-check on a back-off rather than wait for a notify
        synchronized (pause) {
          try {
            pause.wait(backoff);
          } catch (InterruptedException e) {
            return;
          }
        }
        backoff = Math.min(backoff * 2, 2000);
      }
    }
  }

  void close() {
    closed = true;
    thread.interrupt();
    try {
      thread.join(2000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
