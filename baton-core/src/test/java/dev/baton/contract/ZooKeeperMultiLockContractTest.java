package dev.baton.contract;

import dev.baton.testkit.contract.MultiLockContract;
import dev.baton.testkit.contract.ContractBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

class ZooKeeperMultiLockContractTest extends MultiLockContract {
  @RegisterExtension
  static final ZooKeeperBackend BACKEND = new ZooKeeperBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }
}
