package dev.baton.jdbc.contract;

import dev.baton.testkit.contract.LeaderContract;
import dev.baton.testkit.contract.ContractBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

class PostgresLeaderContractTest extends LeaderContract {
  @RegisterExtension
  static final PostgresBackend BACKEND = new PostgresBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }
}
