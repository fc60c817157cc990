package dev.baton.jdbc.contract;

import dev.baton.testkit.contract.CounterContract;
import dev.baton.testkit.contract.ContractBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

class MariaDbCounterContractTest extends CounterContract {
  @RegisterExtension
  static final MariaDbBackend BACKEND = new MariaDbBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }
}
