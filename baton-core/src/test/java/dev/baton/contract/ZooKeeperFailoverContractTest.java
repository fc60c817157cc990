package dev.baton.contract;

import dev.baton.testkit.contract.ContractBackend;
import dev.baton.testkit.contract.FailoverContract;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The failover of the suite's single ZooKeeper server: it restarts, keeping its data and sessions
 * (a write is in its transaction log before it is acknowledged), so the grant is promised to survive.
 */
class ZooKeeperFailoverContractTest extends FailoverContract {
  @RegisterExtension
  static final ZooKeeperBackend BACKEND = new ZooKeeperBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }
}
