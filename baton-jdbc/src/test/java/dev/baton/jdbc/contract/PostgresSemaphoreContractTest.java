package dev.baton.jdbc.contract;

import dev.baton.testkit.contract.SemaphoreContract;
import dev.baton.testkit.contract.ContractBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

class PostgresSemaphoreContractTest extends SemaphoreContract {
  @RegisterExtension
  static final PostgresBackend BACKEND = new PostgresBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }
}
