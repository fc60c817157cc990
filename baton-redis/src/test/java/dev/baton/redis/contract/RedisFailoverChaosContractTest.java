package dev.baton.redis.contract;

import dev.baton.testkit.contract.ChaosContract;
import dev.baton.testkit.contract.ContractBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The chaos run over Redis as it fails over ({@link RedisFailoverBackend}): its faults are
 * failovers, each after replication was held back a little, so the promoted replica lacks the
 * latest grants. Overlaps are allowed only after a failover (the fixture declares {@code
 * GRANT_KEPT_ACROSS_FAILOVER} not promised), each listed with its failover in the report, and the
 * fences must refuse every stale write still.
 */
class RedisFailoverChaosContractTest extends ChaosContract {
  @RegisterExtension
  static final RedisFailoverBackend BACKEND = new RedisFailoverBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }

  @Override
  protected String replayCommand() {
    return "./mvnw verify -pl baton-redis -am -Dtest=RedisFailoverChaosContractTest";
  }

  @Override
  protected String reportName() {
    return "redis-failover";
  }
}
