package dev.baton.contract;

import dev.baton.testkit.contract.SemaphoreContract;
import dev.baton.testkit.contract.ContractBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

class ZooKeeperSemaphoreContractTest extends SemaphoreContract {
  @RegisterExtension
  static final ZooKeeperBackend BACKEND = new ZooKeeperBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }
}
