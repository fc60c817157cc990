package dev.baton.contract;

import dev.baton.testkit.contract.LeaseContract;
import dev.baton.testkit.contract.ContractBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

class ZooKeeperLeaseContractTest extends LeaseContract {
  @RegisterExtension
  static final ZooKeeperBackend BACKEND = new ZooKeeperBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }
}
