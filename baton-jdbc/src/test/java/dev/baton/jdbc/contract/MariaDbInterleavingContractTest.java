package dev.baton.jdbc.contract;

import dev.baton.testkit.contract.ContractBackend;
import dev.baton.testkit.contract.InterleavingContract;
import org.junit.jupiter.api.extension.RegisterExtension;

class MariaDbInterleavingContractTest extends InterleavingContract {
  @RegisterExtension
  static final MariaDbBackend BACKEND = new MariaDbBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }
}
