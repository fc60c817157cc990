package dev.baton.contract;

import dev.baton.testkit.contract.ContractBackend;
import dev.baton.testkit.contract.InterleavingContract;
import org.junit.jupiter.api.extension.RegisterExtension;

class ZooKeeperInterleavingContractTest extends InterleavingContract {
  @RegisterExtension
  static final ZooKeeperBackend BACKEND = new ZooKeeperBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }
}
