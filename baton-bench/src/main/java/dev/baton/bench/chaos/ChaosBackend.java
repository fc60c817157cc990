package dev.baton.bench.chaos;

import dev.baton.Baton;
import dev.baton.Coordinator;
import dev.baton.embedded.EmbeddedPostgreSql;
import dev.baton.embedded.EmbeddedRedis;
import dev.baton.jdbc.JdbcBaton;
import dev.baton.redis.RedisBaton;
import dev.baton.testkit.TestCluster;
import dev.baton.testkit.contract.ContractBackendExtension;
import dev.baton.testkit.contract.Feature;
import dev.baton.testkit.contract.Promise;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A backend for the chaos command: its embedded server, started and stopped by the command, and
 * clients each behind a fault proxy of their own ({@link ContractBackendExtension} does the proxies;
 * it is a JUnit extension only in that the contract tests register it as one). Configured as the
 * conformance suite's fixtures in each backend module's tests ({@code ZooKeeperBackend}, {@code
 * RedisBackend}, {@code PostgresBackend}), so that a report of the command reads like the one the
 * build writes: keep the two in step.
 */
abstract class ChaosBackend extends ContractBackendExtension implements AutoCloseable {
  /** The names {@code --backend} takes, in the order {@code all} runs them. */
  static final List<String> NAMES = List.of("zookeeper", "redis", "postgresql");

  /** The backend named {@code name}, not started. */
  static ChaosBackend named(String name) {
    return switch (name.toLowerCase(Locale.ROOT)) {
      case "zookeeper" -> new ZooKeeper();
      case "redis" -> new Redis();
      case "postgresql" -> new PostgreSql();
      default -> throw new IllegalArgumentException("--backend '" + name + "' is none of " + NAMES + " or all");
    };
  }

  /** Starts the embedded server; returns this. */
  ChaosBackend begin() {
    startServer();
    return this;
  }

  /** Closes every client and its proxy, then stops the server and removes what it stored. */
  @Override
  public void close() {
    try {
      afterEach(null);
    } finally {
      stopServer();
    }
  }

  /** One standalone ZooKeeper server (tickTime 100 ms), clients with a 3 s session. */
  static final class ZooKeeper extends ChaosBackend {
    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(3);
    private TestCluster cluster;

    @Override
    public String name() {
      return "zookeeper";
    }

    @Override
    public Set<Feature> features() {
      return EnumSet.allOf(Feature.class);
    }

    @Override
    public Set<Promise> notPromised() {
      return EnumSet.noneOf(Promise.class);
    }

    @Override
    public Duration leaseTimeout() {
      return SESSION_TIMEOUT;
    }

    @Override
    protected void startServer() {
      cluster = TestCluster.builder().standalone().property("maxSessionTimeout", "30000").start();
    }

    @Override
    protected void stopServer() {
      if (cluster != null) {
        cluster.close();
      }
    }

    @Override
    protected InetSocketAddress serverAddress() {
      return cluster.address(0);
    }

    @Override
    protected Coordinator connect(String hostAndPort, Duration sessionTimeout) {
      return Baton.builder().connectString(hostAndPort).sessionTimeout(sessionTimeout)
          .connectionTimeout(Duration.ofSeconds(10)).build();
    }

    @Override
    public void restartServer() {
      cluster.stop(0);
      cluster.start(0);
      cluster.awaitServing(0);
    }
  }

  /**
   * One redis-server without persistence (a restart empties it), clients with a 1.5 s lease TTL
   * renewed every 300 ms; the lock key can be deleted under its holder.
   */
  static final class Redis extends ChaosBackend {
    private static final Duration LEASE_TTL = Duration.ofMillis(1500);
    private static final Duration RENEW_EVERY = Duration.ofMillis(300);
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);
    private EmbeddedRedis redis;

    @Override
    public String name() {
      return "redis";
    }

    @Override
    public Set<Feature> features() {
      return EnumSet.of(Feature.MUTEX, Feature.READ_WRITE_LOCK, Feature.SEMAPHORE, Feature.MULTI_LOCK,
          Feature.LEADER_LATCH, Feature.LEADER_SELECTOR);
    }

    @Override
    public Set<Promise> notPromised() {
      return EnumSet.of(Promise.LEASE_KEPT_ACROSS_SERVER_RESTART, Promise.WAITER_SHOWS_ITS_TOKEN,
        Promise.LOSS_TOLD_BEFORE_REGRANT_WHEN_KEY_DELETED);
    }

    @Override
    public Duration leaseTimeout() {
      return LEASE_TTL;
    }

    @Override
    protected void startServer() {
      redis = EmbeddedRedis.start();
    }

    @Override
    protected void stopServer() {
      if (redis != null) {
        redis.close();
      }
    }

    @Override
    protected InetSocketAddress serverAddress() {
      return new InetSocketAddress(redis.host(), redis.port());
    }

    @Override
    protected Coordinator connect(String hostAndPort, Duration leaseTtl) {
      Duration renew = leaseTtl.dividedBy(5).compareTo(RENEW_EVERY) < 0 ? leaseTtl.dividedBy(5) : RENEW_EVERY;
      return RedisBaton.builder().uri("redis://" + hostAndPort).leaseTtl(leaseTtl).renewEvery(renew)
          .commandTimeout(COMMAND_TIMEOUT).connectTimeout(Duration.ofSeconds(10))
          .waiterLease(Duration.ofSeconds(3)).build();
    }

    @Override
    public void restartServer() {
      redis.restart();
    }

    @Override
    public boolean canDeleteLockKey() {
      return true;
    }

    @Override
    public boolean deleteLockKey(String name) {
      RedisClient raw = RedisClient.create(redis.uri());
      try (StatefulRedisConnection<String, String> connection = raw.connect()) {
        return connection.sync().del(name) > 0;
      } finally {
        raw.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    }
  }

  /** A PostgreSQL of its own (real binaries, restartable on the same data), clients with a 1.5 s lease TTL. */
  static final class PostgreSql extends ChaosBackend {
    private static final Duration LEASE_TTL = Duration.ofMillis(1500);
    private EmbeddedPostgreSql server;
    private String database;

    @Override
    public String name() {
      return "postgresql";
    }

    @Override
    public Set<Feature> features() {
      return EnumSet.of(Feature.MUTEX, Feature.MULTI_LOCK, Feature.LEADER_LATCH, Feature.LEADER_SELECTOR, Feature.SEMAPHORE,
          Feature.READ_WRITE_LOCK, Feature.COUNTER);
    }

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
      server = EmbeddedPostgreSql.start();
      database = server.newDatabase();
    }

    @Override
    protected void stopServer() {
      if (server != null) {
        server.close();
      }
    }

    @Override
    protected InetSocketAddress serverAddress() {
      return new InetSocketAddress(server.host(), server.port());
    }

    @Override
    protected Coordinator connect(String hostAndPort, Duration leaseTtl) {
      return JdbcBaton.builder().url("jdbc:postgresql://" + hostAndPort + "/" + database + "?user=postgres")
          .leaseTtl(leaseTtl).renewEvery(leaseTtl.dividedBy(5)).connectTimeout(Duration.ofSeconds(10))
          .createSchema(true).build();
    }

    @Override
    public void restartServer() {
      server.restart();
    }
  }
}
