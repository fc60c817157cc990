package dev.baton.contract;

import dev.baton.testkit.contract.MutexContract;
import dev.baton.testkit.contract.ContractBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

class ZooKeeperMutexContractTest extends MutexContract {
  @RegisterExtension
  static final ZooKeeperBackend BACKEND = new ZooKeeperBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }
}
