package dev.baton.jdbc.contract;

import dev.baton.testkit.contract.MultiLockContract;
import dev.baton.testkit.contract.ContractBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

class PostgresMultiLockContractTest extends MultiLockContract {
  @RegisterExtension
  static final PostgresBackend BACKEND = new PostgresBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }
}
