package dev.baton.jdbc.contract;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.Coordinator;
import dev.baton.jdbc.JdbcBaton;
import dev.baton.jdbc.MariaDbServer;
import dev.baton.testkit.contract.ContractBackendExtension;
import dev.baton.testkit.contract.Feature;
import dev.baton.testkit.contract.Promise;
import java.net.InetSocketAddress;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The SQL backend on MySQL/MariaDB for the conformance suite: the JVM's one MariaDB from the
 * machine's packages ({@link MariaDbServer#shared()}, loopback, a free port, restartable on the same
 * data), a database of its own per test class, clients with a 1.5 s lease TTL, each through a proxy
 * of its own. Where {@code mariadbd} is not installed, every contract class is skipped by a JUnit
 * assumption that names what is missing.
 */
public final class MariaDbBackend extends ContractBackendExtension {
  private static final Duration LEASE_TTL = Duration.ofMillis(1500);
  private MariaDbServer server;
  private String database;

  @Override
  public String name() {
    return "mysql";
  }

  /** Every recipe, as on PostgreSQL: the SQL of both families is one set of statements. */
  @Override
  public Set<Feature> features() {
    return EnumSet.of(Feature.MUTEX, Feature.MULTI_LOCK, Feature.LEADER_LATCH, Feature.LEADER_SELECTOR, Feature.SEMAPHORE,
        Feature.READ_WRITE_LOCK, Feature.COUNTER, Feature.LOCAL_HAND_OVER, Feature.LOCK_CACHING);
  }

  /**
   * As on PostgreSQL, there is no queue in the table: waiters of different clients race for a
   * released row, and a client sees only its own waiters, with no token until they are granted.
   * MySQL has no notify either, which costs time (waiters re-check on a back-off) but no promise.
   */
  @Override
  public Set<Promise> notPromised() {
    return EnumSet.of(Promise.FIFO_AMONG_CLIENTS, Promise.WAITER_SHOWS_ITS_TOKEN,
        Promise.WAITERS_SEEN_BY_EVERY_CLIENT);
  }

  @Override
  public Duration leaseTimeout() {
    return LEASE_TTL;
  }

  @Override
  protected void startServer() {
    assumeTrue(MariaDbServer.missing().isEmpty(), () -> MariaDbServer.missing().orElse(""));
    server = MariaDbServer.shared();
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
    // A user name of its own tells this client's connections apart in the process list
    // (killConnections); the server runs without grant tables, so any name logs in with every right.
    return JdbcBaton.builder().url("jdbc:mariadb://" + hostAndPort + "/" + database + "?user=" + userOf(hostAndPort))
        .leaseTtl(leaseTtl).renewEvery(renew).connectTimeout(Duration.ofSeconds(10)).createSchema(true).build();
  }

  @Override
  public void restartServer() {
    server.restart();
  }

  private static String userOf(String hostAndPort) {
    return "baton" + hostAndPort.substring(hostAndPort.lastIndexOf(':') + 1);
  }

  @Override
  public boolean canDeleteRecord(Feature feature) {
    return feature == Feature.MUTEX || feature == Feature.READ_WRITE_LOCK || feature == Feature.SEMAPHORE;
  }

  /** As on PostgreSQL ({@code PostgresBackend#deleteRecord}): the mutex row's claim, else the first holder's row. */
  @Override
  public boolean deleteRecord(Feature feature, String name) {
    try (Connection c = DriverManager.getConnection(server.url(database))) {
      if (feature == Feature.MUTEX) {
        try (PreparedStatement ps = c.prepareStatement("UPDATE baton_lock SET owner = NULL, expires_at = UTC_TIMESTAMP(6)"
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
  public boolean canKillConnections() {
    return true;
  }

  /** {@code KILL CONNECTION} of every connection the process list shows under {@code client}'s user. */
  @Override
  public int killConnections(Coordinator client) {
    try (Connection c = DriverManager.getConnection(server.url(database)); Statement s = c.createStatement()) {
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
  public boolean canCountLeftovers() {
    return true;
  }

  @Override
  public List<String> leftovers(Map<Feature, String> recipes) {
    try (Connection c = DriverManager.getConnection(server.url(database))) {
      return SqlRecords.leftovers(c, "UTC_TIMESTAMP(6)", recipes);
    } catch (SQLException e) {
      throw new IllegalStateException("could not read the claims left in " + database, e);
    }
  }
}
