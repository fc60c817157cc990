package dev.baton.jdbc.contract;

import dev.baton.testkit.contract.ReadWriteLockContract;
import dev.baton.testkit.contract.ContractBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

class PostgresReadWriteLockContractTest extends ReadWriteLockContract {
  @RegisterExtension
  static final PostgresBackend BACKEND = new PostgresBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }
}
