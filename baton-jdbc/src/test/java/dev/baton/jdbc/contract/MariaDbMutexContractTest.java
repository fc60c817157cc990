package dev.baton.jdbc.contract;

import dev.baton.testkit.contract.MutexContract;
import dev.baton.testkit.contract.ContractBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

class MariaDbMutexContractTest extends MutexContract {
  @RegisterExtension
  static final MariaDbBackend BACKEND = new MariaDbBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }
}
