package dev.baton.jdbc.contract;

import dev.baton.testkit.contract.SemaphoreContract;
import dev.baton.testkit.contract.ContractBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

class MariaDbSemaphoreContractTest extends SemaphoreContract {
  @RegisterExtension
  static final MariaDbBackend BACKEND = new MariaDbBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }
}
