package dev.baton.contract;

import dev.baton.testkit.contract.BadInputContract;
import dev.baton.testkit.contract.ContractBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

class ZooKeeperBadInputContractTest extends BadInputContract {
  @RegisterExtension
  static final ZooKeeperBackend BACKEND = new ZooKeeperBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }
}
