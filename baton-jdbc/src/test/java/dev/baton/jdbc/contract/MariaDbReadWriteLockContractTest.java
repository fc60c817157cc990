package dev.baton.jdbc.contract;

import dev.baton.testkit.contract.ReadWriteLockContract;
import dev.baton.testkit.contract.ContractBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

class MariaDbReadWriteLockContractTest extends ReadWriteLockContract {
  @RegisterExtension
  static final MariaDbBackend BACKEND = new MariaDbBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }
}
