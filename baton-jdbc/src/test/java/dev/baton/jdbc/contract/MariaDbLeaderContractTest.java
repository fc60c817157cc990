package dev.baton.jdbc.contract;

import dev.baton.testkit.contract.LeaderContract;
import dev.baton.testkit.contract.ContractBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

class MariaDbLeaderContractTest extends LeaderContract {
  @RegisterExtension
  static final MariaDbBackend BACKEND = new MariaDbBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }
}
