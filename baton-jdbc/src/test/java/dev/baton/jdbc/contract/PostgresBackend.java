package dev.baton.jdbc.contract;

import dev.baton.Coordinator;
import dev.baton.jdbc.JdbcBaton;
import dev.baton.jdbc.PostgresServer;
import dev.baton.testkit.contract.ContractBackendExtension;
import dev.baton.testkit.contract.Feature;
import dev.baton.testkit.contract.Promise;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
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
        Feature.READ_WRITE_LOCK, Feature.COUNTER);
  }

  /**
   * There is no queue in the table: waiters of different clients race for a released row (each
   * client's own waiters share one check), and a client sees only its own waiters, with no token
   * until they are granted.
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
    return JdbcBaton.builder().url("jdbc:postgresql://" + hostAndPort + "/" + database + "?user=postgres")
        .leaseTtl(leaseTtl).renewEvery(renew).connectTimeout(Duration.ofSeconds(10)).createSchema(true).build();
  }

  @Override
  public void restartServer() {
    server.restart();
  }
}
