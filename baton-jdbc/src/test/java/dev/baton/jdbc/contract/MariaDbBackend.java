package dev.baton.jdbc.contract;

import dev.baton.Coordinator;
import dev.baton.jdbc.MariaDbServer;
import dev.baton.jdbc.SqlTestServer;
import dev.baton.testkit.contract.Promise;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The SQL backend on MySQL/MariaDB for the conformance suite ({@link SqlBackend}), on the JVM's one
 * MariaDB from the machine's packages ({@link MariaDbServer#shared()}, loopback, a free port,
 * restartable on the same data). Where {@code mariadbd} is not installed, every contract class is
 * skipped by a JUnit assumption that names what is missing.
 */
public final class MariaDbBackend extends SqlBackend {
  @Override
  public String name() {
    return "mysql";
  }

  /**
   * As on PostgreSQL, there is no queue in the table: waiters of different clients race for a
   * released row, and a client sees only its own waiters, with no token until they are granted.
   * MySQL has no notify either, which costs time (waiters re-check on a back-off) but no promise.
   * As there too, a holder whose claim on the row is taken away ({@link #deleteRecord}) hears of it
   * at its next renewal, and a waiter may be granted the row before then.
   */
  @Override
  public Set<Promise> notPromised() {
    return EnumSet.of(Promise.FIFO_AMONG_CLIENTS, Promise.WAITER_SHOWS_ITS_TOKEN,
        Promise.WAITERS_SEEN_BY_EVERY_CLIENT, Promise.LOSS_TOLD_BEFORE_REGRANT_WHEN_KEY_DELETED);
  }

  @Override
  protected SqlTestServer sharedServer() {
    return MariaDbServer.sharedOrSkip();
  }

  /**
   * A user name of its own tells this client's connections apart in the process list
   * (killConnections); the test server runs without grant tables, so any name logs in with every right.
   */
  @Override
  protected String url(String hostAndPort, String database) {
    return "jdbc:mariadb://" + hostAndPort + "/" + database + "?user=" + userOf(hostAndPort);
  }

  private static String userOf(String hostAndPort) {
    return "baton" + hostAndPort.substring(hostAndPort.lastIndexOf(':') + 1);
  }

  @Override
  public boolean canKillConnections() {
    return true;
  }

  /** {@code KILL CONNECTION} of every connection the process list shows under {@code client}'s user. */
  @Override
  public int killConnections(Coordinator client) {
    try (Connection c = DriverManager.getConnection(server().url(database())); Statement s = c.createStatement()) {
      List<Long> ids = new ArrayList<>();
      try (PreparedStatement ps = c.prepareStatement("SELECT id FROM information_schema.processlist WHERE user = ?")) {
        ps.setString(1, userOf(connectString(client)));
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            ids.add(rs.getLong(1));
          }
        }
      }
      int killed = 0;
      for (long id : ids) {
        try {
          s.execute("KILL CONNECTION " + id);
          killed++;
        } catch (SQLException goneMeanwhile) {
          // The connection ended between the list and the kill: nothing to kill.
        }
      }
      return killed;
    } catch (SQLException e) {
      throw new IllegalStateException("could not kill the connections of " + client, e);
    }
  }

  @Override
  protected String now() {
    return "UTC_TIMESTAMP(6)";
  }
}
