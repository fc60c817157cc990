package dev.baton.jdbc.contract;

import dev.baton.Coordinator;
import dev.baton.jdbc.JdbcBaton;
import dev.baton.jdbc.PostgresServer;
import dev.baton.testkit.contract.ContractBackendExtension;
import dev.baton.testkit.contract.Feature;
import dev.baton.testkit.contract.Promise;
import java.net.InetSocketAddress;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The SQL backend on PostgreSQL for the conformance suite: the JVM's embedded PostgreSQL (real
 * binaries, loopback, a free port), a database of its own per test class, clients with a 1.5 s
 * lease TTL, each through a proxy of its own (its LISTEN connection too).
 */
public final class PostgresBackend extends ContractBackendExtension {
  private static final Duration LEASE_TTL = Duration.ofMillis(1500);
  private PostgresServer server;
  private String database;

  @Override
  public String name() {
    return "postgresql";
  }

  /** Every recipe: the counter has no contract class yet (JdbcPostgresRecipeTest covers it), but the chaos run uses it. */
  @Override
  public Set<Feature> features() {
    return EnumSet.of(Feature.MUTEX, Feature.MULTI_LOCK, Feature.LEADER_LATCH, Feature.LEADER_SELECTOR, Feature.SEMAPHORE,
        Feature.READ_WRITE_LOCK, Feature.COUNTER, Feature.LOCAL_HAND_OVER, Feature.LOCK_CACHING);
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
  public Duration leaseTimeout() {
    return LEASE_TTL;
  }

  @Override
  protected void startServer() {
    server = PostgresServer.shared();
    database = server.newDatabase();
  }

  @Override
  protected void stopServer() {
    // The server is the JVM's, stopped when it exits.
  }

  @Override
  protected InetSocketAddress serverAddress() {
    return new InetSocketAddress("127.0.0.1", server.port());
  }

  @Override
  protected Coordinator connect(String hostAndPort, Duration leaseTtl) {
    Duration renew = leaseTtl.dividedBy(5);
    // The application name tells this client's backends apart in pg_stat_activity (killConnections).
    return JdbcBaton.builder().url("jdbc:postgresql://" + hostAndPort + "/" + database + "?user=postgres&ApplicationName="
            + applicationName(hostAndPort))
        .leaseTtl(leaseTtl).renewEvery(renew).connectTimeout(Duration.ofSeconds(10)).createSchema(true).build();
  }

  @Override
  public void restartServer() {
    server.restart();
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
    try (Connection c = server.dataSource(database).getConnection()) {
      return SqlRecords.deleteHolderRow(c, feature, name);
    } catch (SQLException e) {
      throw new IllegalStateException("could not delete a holder's row of " + name + " on " + database, e);
    }
  }

  @Override
  public boolean canCountLeftovers() {
    return true;
  }

  @Override
  public List<String> leftovers(Map<Feature, String> recipes) {
    try (Connection c = server.dataSource(database).getConnection()) {
      return SqlRecords.leftovers(c, "now()", recipes);
    } catch (SQLException e) {
      throw new IllegalStateException("could not read the claims left in " + database, e);
    }
  }

  @Override
  public boolean canKillConnections() {
    return true;
  }

  /** {@code pg_terminate_backend} of every backend serving {@code client} (its pool and its LISTEN connection). */
  @Override
  public int killConnections(Coordinator client) {
    try (Connection c = server.dataSource(database).getConnection();
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

  private int admin(String sql, String argument) {
    try (Connection c = server.dataSource(database).getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, argument);
      return ps.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("could not run " + sql + " on " + database, e);
    }
  }
}
