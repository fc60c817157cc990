package dev.baton.redis.contract;

import dev.baton.testkit.contract.ContractBackend;
import dev.baton.testkit.contract.FailoverContract;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The failover contract on a Redis master, its replica and a Sentinel: the grant is on the master
 * only when the master is killed, so Redis declares it not kept, and the suite checks the declared
 * outcome (the lease LOST in the open, the next holder's fencing token larger).
 */
class RedisFailoverContractTest extends FailoverContract {
  @RegisterExtension
  static final RedisFailoverBackend BACKEND = new RedisFailoverBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }
}
