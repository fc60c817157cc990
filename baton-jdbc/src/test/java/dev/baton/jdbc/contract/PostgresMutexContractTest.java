package dev.baton.jdbc.contract;

import dev.baton.testkit.contract.MutexContract;
import dev.baton.testkit.contract.ContractBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

class PostgresMutexContractTest extends MutexContract {
  @RegisterExtension
  static final PostgresBackend BACKEND = new PostgresBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }
}
