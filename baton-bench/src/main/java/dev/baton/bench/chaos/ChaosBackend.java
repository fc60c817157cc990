package dev.baton.bench.chaos;

import dev.baton.contract.ZooKeeperBackend;
import dev.baton.jdbc.MariaDbServer;
import dev.baton.jdbc.contract.MariaDbBackend;
import dev.baton.jdbc.contract.PostgresBackend;
import dev.baton.redis.contract.RedisBackend;
import dev.baton.redis.contract.RedisClusterFailoverBackend;
import dev.baton.redis.contract.RedisFailoverBackend;
import dev.baton.testkit.contract.ContractBackend;
import dev.baton.testkit.contract.ContractBackendExtension;
import java.util.List;
import java.util.Locale;

/**
 * A backend for the chaos command: the conformance suite's own fixture of that store ({@code
 * ZooKeeperBackend}, {@code RedisBackend}, {@code PostgresBackend}, {@code RedisFailoverBackend},
 * {@code RedisClusterFailoverBackend}, {@code MariaDbBackend},
 * from the backend modules' test jars), so that the command's report and the build's are made by
 * the same servers, clients and faults. The fixtures are JUnit extensions only in that the contract
 * tests register them as such: here their callbacks are called by hand, with no extension context,
 * which they do not read.
 */
final class ChaosBackend implements AutoCloseable {
  /** The names {@code --backend all} runs, in that order: one per store. */
  static final List<String> NAMES = List.of("zookeeper", "redis", "postgresql");
  /**
   * The names {@code --backend} takes besides: Redis with an append-only file synced on every write
   * (restarts keep the counter), Redis with a replica and Sentinel that fails over, a Redis
   * Cluster whose masters fail over to their replicas, and the SQL backend on MariaDB (MySQL's
   * dialect; no Maven package ships its server, so it runs the machine's {@code mariadbd}).
   */
  static final List<String> VARIANTS = List.of("redis-aof", "redis-failover", "redis-cluster-failover", "mariadb");

  private final String name;
  private final ContractBackend fixture;
  private final Runnable start;
  private final Runnable stop;

  private ChaosBackend(String name, ContractBackendExtension fixture) {
    this(name, fixture, () -> fixture.beforeAll(null), () -> {
      try {
        fixture.afterEach(null);
      } finally {
        fixture.afterAll(null);
      }
    });
  }

  private ChaosBackend(String name, RedisFailoverBackend fixture) {
    this(name, fixture, () -> fixture.beforeEach(null), () -> fixture.afterEach(null));
  }

  private ChaosBackend(String name, RedisClusterFailoverBackend fixture) {
    this(name, fixture, () -> fixture.beforeEach(null), () -> fixture.afterEach(null));
  }

  private ChaosBackend(String name, ContractBackend fixture, Runnable start, Runnable stop) {
    this.name = name;
    this.fixture = fixture;
    this.start = start;
    this.stop = stop;
  }

  /** The backend named {@code name}, not started. */
  static ChaosBackend named(String name) {
    String key = name.toLowerCase(Locale.ROOT);
    return switch (key) {
      case "zookeeper" -> new ChaosBackend(key, new ZooKeeperBackend());
      case "redis" -> new ChaosBackend(key, new RedisBackend());
      case "postgresql" -> new ChaosBackend(key, new PostgresBackend());
      case "redis-aof" -> new ChaosBackend(key, RedisBackend.persistent());
      case "redis-failover" -> new ChaosBackend(key, new RedisFailoverBackend());
      case "redis-cluster-failover" -> new ChaosBackend(key, new RedisClusterFailoverBackend());
      case "mariadb" -> {
        MariaDbServer.missing().ifPresent(what -> {
          throw new IllegalArgumentException("--backend mariadb needs MariaDB's server on this machine: " + what);
        });
        yield new ChaosBackend(key, new MariaDbBackend());
      }
      default -> throw new IllegalArgumentException("--backend '" + name + "' is none of " + NAMES + ", " + VARIANTS
          + " or all");
    };
  }

  /** Starts the embedded server(s); returns this. */
  ChaosBackend begin() {
    start.run();
    return this;
  }

  /** The name the report's table takes. */
  String name() {
    return name;
  }

  /** The fixture the chaos run drives. */
  ContractBackend fixture() {
    return fixture;
  }

  /** Closes every client (and its proxy), then stops the server(s). */
  @Override
  public void close() {
    stop.run();
  }
}
