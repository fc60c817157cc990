package dev.baton.jdbc.contract;

import dev.baton.Coordinator;
import dev.baton.jdbc.PostgresServer;
import dev.baton.testkit.contract.Feature;
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
   * ({@link #deleteLockKey}) until its next renewal finds the row no longer names it, and a waiter
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
  public boolean canDeleteRecord(Feature feature) {
    return feature == Feature.MUTEX || feature == Feature.READ_WRITE_LOCK || feature == Feature.SEMAPHORE;
  }

  /**
   * Takes the holder's claim off the mutex's row ({@code owner} and {@code expires_at} cleared), as
   * an operator freeing a lock by hand would. The row itself stays: it is the lock's fencing counter,
   * and the DDL warns that deleting it starts tokens again from 1, which no fence can survive. Of a
   * read-write lock or a semaphore, the row of the holder granted first is deleted (its name's
   * header row, the counter, stays).
   */
  @Override
  public boolean deleteRecord(Feature feature, String name) {
    if (feature == Feature.MUTEX) {
      return admin("UPDATE baton_lock SET owner = NULL, expires_at = now() WHERE name = ? AND owner IS NOT NULL", name) > 0;
    }
    try (Connection c = postgres().dataSource(database()).getConnection()) {
      return SqlRecords.deleteHolderRow(c, feature, name);
    } catch (SQLException e) {
      throw new IllegalStateException("could not delete a holder's row of " + name + " on " + database(), e);
    }
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

  private int admin(String sql, String argument) {
    try (Connection c = postgres().dataSource(database()).getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, argument);
      return ps.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("could not run " + sql + " on " + database(), e);
    }
  }
}
