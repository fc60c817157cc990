package dev.baton.jdbc.contract;

import dev.baton.testkit.contract.ContractBackend;
import dev.baton.testkit.contract.InterleavingContract;
import org.junit.jupiter.api.extension.RegisterExtension;

class PostgresInterleavingContractTest extends InterleavingContract {
  @RegisterExtension
  static final PostgresBackend BACKEND = new PostgresBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }
}
