package dev.baton.bench.chaos;

import dev.baton.contract.ZooKeeperBackend;
import dev.baton.jdbc.contract.PostgresBackend;
import dev.baton.redis.contract.RedisBackend;
import dev.baton.testkit.contract.ContractBackendExtension;
import java.util.List;
import java.util.Locale;

/**
 * A backend for the chaos command: the conformance suite's own fixture of that store ({@code
 * ZooKeeperBackend}, {@code RedisBackend}, {@code PostgresBackend}, from the backend modules' test
 * jars), so that the command's report and the build's are made by the same servers, clients and
 * faults. The fixtures are JUnit extensions only in that the contract tests register them as
 * such: here their callbacks are called by hand, with no extension context, which they do not read.
 */
final class ChaosBackend implements AutoCloseable {
  /** The names {@code --backend} takes, in the order {@code all} runs them. */
  static final List<String> NAMES = List.of("zookeeper", "redis", "postgresql");

  private final ContractBackendExtension fixture;

  private ChaosBackend(ContractBackendExtension fixture) {
    this.fixture = fixture;
  }

  /** The backend named {@code name}, not started. */
  static ChaosBackend named(String name) {
    return new ChaosBackend(switch (name.toLowerCase(Locale.ROOT)) {
      case "zookeeper" -> new ZooKeeperBackend();
      case "redis" -> new RedisBackend();
      case "postgresql" -> new PostgresBackend();
      default -> throw new IllegalArgumentException("--backend '" + name + "' is none of " + NAMES + " or all");
    });
  }

  /** Starts the embedded server; returns this. */
  ChaosBackend begin() {
    fixture.beforeAll(null);
    return this;
  }

  /** The fixture the chaos run drives. */
  ContractBackendExtension fixture() {
    return fixture;
  }

  /** Closes every client and its proxy, then stops the server. */
  @Override
  public void close() {
    try {
      fixture.afterEach(null);
    } finally {
      fixture.afterAll(null);
    }
  }
}
