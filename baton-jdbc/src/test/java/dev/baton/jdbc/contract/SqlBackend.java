package dev.baton.jdbc.contract;

import dev.baton.Coordinator;
import dev.baton.jdbc.JdbcBaton;
import dev.baton.jdbc.SqlTestServer;
import dev.baton.testkit.contract.ContractBackendExtension;
import dev.baton.testkit.contract.Feature;
import java.net.InetSocketAddress;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the SQL backend's conformance fixtures share on either database: the JVM's one server, a
 * database of its own per test class, clients with a 1.5 s lease TTL, each through a proxy of its
 * own, and every recipe (the SQL of both families is one set of statements).
 */
abstract class SqlBackend extends ContractBackendExtension {
  private static final Duration LEASE_TTL = Duration.ofMillis(1500);
  private SqlTestServer server;
  private String database;

  /** The JVM's server, started on first use (or the test class skipped where it cannot be). */
  protected abstract SqlTestServer sharedServer();

  /** A JDBC URL of {@code database} through {@code hostAndPort}, the client's proxy. */
  protected abstract String url(String hostAndPort, String database);

  /** The SQL of the database's clock, as the lock tables' expiry columns are written. */
  protected abstract String now();

  protected final SqlTestServer server() {
    return server;
  }

  protected final String database() {
    return database;
  }

  /** Every recipe: the counter has no contract class yet (JdbcPostgresRecipeTest covers it), but the chaos run uses it. */
  @Override
  public Set<Feature> features() {
    return EnumSet.of(Feature.MUTEX, Feature.MULTI_LOCK, Feature.LEADER_LATCH, Feature.LEADER_SELECTOR, Feature.SEMAPHORE,
        Feature.READ_WRITE_LOCK, Feature.COUNTER, Feature.LOCAL_HAND_OVER, Feature.LOCK_CACHING);
  }

  @Override
  public Duration leaseTimeout() {
    return LEASE_TTL;
  }

  @Override
  protected void startServer() {
    server = sharedServer();
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
    return JdbcBaton.builder().url(url(hostAndPort, database))
        .leaseTtl(leaseTtl).renewEvery(renew).connectTimeout(Duration.ofSeconds(10)).createSchema(true).build();
  }

  @Override
  public void restartServer() {
    server.restart();
  }

  @Override
  public boolean canDeleteRecord(Feature feature) {
    return feature == Feature.MUTEX || feature == Feature.READ_WRITE_LOCK || feature == Feature.SEMAPHORE;
  }

  /**
   * Takes the holder's claim off the mutex's row ({@code owner} cleared, {@code expires_at} now), as
   * an operator freeing a lock by hand would. The row itself stays: it is the lock's fencing counter,
   * and the DDL warns that deleting it starts tokens again from 1, which no fence can survive. Of a
   * read-write lock or a semaphore, the row of the holder granted first is deleted (its name's
   * header row, the counter, stays).
   */
  @Override
  public boolean deleteRecord(Feature feature, String name) {
    try (Connection c = DriverManager.getConnection(server.url(database))) {
      if (feature == Feature.MUTEX) {
        try (PreparedStatement ps = c.prepareStatement("UPDATE baton_lock SET owner = NULL, expires_at = " + now()
            + " WHERE name = ? AND owner IS NOT NULL")) {
          ps.setString(1, name);
          return ps.executeUpdate() > 0;
        }
      }
      return SqlRecords.deleteHolderRow(c, feature, name);
    } catch (SQLException e) {
      throw new IllegalStateException("could not delete a holder's record of " + name + " on " + database, e);
    }
  }

  @Override
  public boolean canCountLeftovers() {
    return true;
  }

  @Override
  public List<String> leftovers(Map<Feature, String> recipes) {
    try (Connection c = DriverManager.getConnection(server.url(database))) {
      return SqlRecords.leftovers(c, now(), recipes);
    } catch (SQLException e) {
      throw new IllegalStateException("could not read the claims left in " + database, e);
    }
  }
}
