package dev.baton.contract;

import dev.baton.testkit.contract.ChaosContract;
import dev.baton.testkit.contract.ContractBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

class ZooKeeperChaosContractTest extends ChaosContract {
  @RegisterExtension
  static final ZooKeeperBackend BACKEND = new ZooKeeperBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }

  @Override
  protected String replayCommand() {
    return "./mvnw verify -pl baton-core -am -Dtest=ZooKeeperChaosContractTest";
  }
}
