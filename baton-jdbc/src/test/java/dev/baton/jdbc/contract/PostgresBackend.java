package dev.baton.jdbc.contract;

import dev.baton.Coordinator;
import dev.baton.jdbc.PostgresServer;
import dev.baton.testkit.contract.Promise;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.EnumSet;
import java.util.Set;

/**
 * The SQL backend on PostgreSQL for the conformance suite ({@link SqlBackend}), on the JVM's
 * embedded PostgreSQL (real binaries, loopback, a free port); a client's proxy carries its LISTEN
 * connection too.
 */
public final class PostgresBackend extends SqlBackend {
  @Override
  public String name() {
    return "postgresql";
  }

  /**
   * There is no queue in the table: waiters of different clients race for a released row (each
   * client's own waiters share one check), and a client sees only its own waiters, with no token
   * until they are granted. Nothing tells a holder that its claim on the row was taken away
   * ({@link #deleteRecord}) until its next renewal finds the row no longer names it, and a waiter
   * may be granted the row before then: the chaos run counts those grants apart.
   */
  @Override
  public Set<Promise> notPromised() {
    return EnumSet.of(Promise.FIFO_AMONG_CLIENTS, Promise.WAITER_SHOWS_ITS_TOKEN,
        Promise.WAITERS_SEEN_BY_EVERY_CLIENT, Promise.LOSS_TOLD_BEFORE_REGRANT_WHEN_KEY_DELETED);
  }

  @Override
  protected PostgresServer sharedServer() {
    return PostgresServer.shared();
  }

  /** The application name tells this client's backends apart in pg_stat_activity (killConnections). */
  @Override
  protected String url(String hostAndPort, String database) {
    return "jdbc:postgresql://" + hostAndPort + "/" + database + "?user=postgres&ApplicationName="
        + applicationName(hostAndPort);
  }

  @Override
  protected String now() {
    return "now()";
  }

  private static String applicationName(String hostAndPort) {
    return "baton-contract-" + hostAndPort.substring(hostAndPort.lastIndexOf(':') + 1);
  }

  @Override
  public boolean canKillConnections() {
    return true;
  }

  /** {@code pg_terminate_backend} of every backend serving {@code client} (its pool and its LISTEN connection). */
  @Override
  public int killConnections(Coordinator client) {
    try (Connection c = postgres().dataSource(database()).getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))"
            + " FROM pg_stat_activity WHERE application_name = ?")) {
      ps.setString(1, applicationName(connectString(client)));
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("could not terminate the backends of " + client, e);
    }
  }

  private PostgresServer postgres() {
    return (PostgresServer) server();
  }
}
