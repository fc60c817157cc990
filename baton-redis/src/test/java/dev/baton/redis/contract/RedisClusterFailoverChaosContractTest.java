package dev.baton.redis.contract;

import dev.baton.testkit.contract.ChaosContract;
import dev.baton.testkit.contract.ContractBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The chaos run over a Redis Cluster as it fails over ({@link RedisClusterFailoverBackend}): its
 * faults are failovers of the masters that hold the recipes' keys, in turn, each after that master's
 * replication was held back a little, so the promoted replica lacks the latest grants. Overlaps are
 * allowed only after a failover ({@code GRANT_KEPT_ACROSS_FAILOVER} is declared not promised), each
 * listed with its failover in the report, and the fences must refuse every stale write still.
 */
class RedisClusterFailoverChaosContractTest extends ChaosContract {
  @RegisterExtension
  static final RedisClusterFailoverBackend BACKEND = new RedisClusterFailoverBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }

  @Override
  protected String replayCommand() {
    return "./mvnw verify -pl baton-redis -am -Dtest=RedisClusterFailoverChaosContractTest";
  }

  @Override
  protected String reportName() {
    return "redis-cluster-failover";
  }
}
