package dev.baton.redis.contract;

import dev.baton.testkit.contract.ContractBackend;
import dev.baton.testkit.contract.FailoverContract;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The failover contract on a Redis Cluster whose lock's master is killed and its replica promoted
 * ({@code CLUSTER FAILOVER TAKEOVER}) after the grant: Redis declares the grant not kept, and the
 * suite checks the declared outcome (the lease LOST in the open, the next holder's token larger).
 */
class RedisClusterFailoverContractTest extends FailoverContract {
  @RegisterExtension
  static final RedisClusterFailoverBackend BACKEND = new RedisClusterFailoverBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }
}
