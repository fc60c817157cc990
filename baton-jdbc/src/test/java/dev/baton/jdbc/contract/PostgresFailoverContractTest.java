package dev.baton.jdbc.contract;

import dev.baton.testkit.contract.ContractBackend;
import dev.baton.testkit.contract.FailoverContract;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The failover of the suite's PostgreSQL, which has no replica: the server restarts on its data,
 * which has every committed grant, so the grant is promised to survive.
 */
class PostgresFailoverContractTest extends FailoverContract {
  @RegisterExtension
  static final PostgresBackend BACKEND = new PostgresBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }
}
