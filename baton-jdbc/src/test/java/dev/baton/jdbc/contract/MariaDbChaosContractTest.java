package dev.baton.jdbc.contract;

import dev.baton.testkit.contract.ChaosContract;
import dev.baton.testkit.contract.ContractBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

class MariaDbChaosContractTest extends ChaosContract {
  @RegisterExtension
  static final MariaDbBackend BACKEND = new MariaDbBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }

  @Override
  protected String replayCommand() {
    return "./mvnw verify -pl baton-jdbc -am -Dtest=MariaDbChaosContractTest";
  }
}
