package dev.baton.jdbc.contract;

import dev.baton.testkit.contract.ContractBackend;
import dev.baton.testkit.contract.FailoverContract;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The failover of the suite's MariaDB, which has no replica: the server restarts on its data,
 * which has every committed grant, so the grant is promised to survive.
 */
class MariaDbFailoverContractTest extends FailoverContract {
  @RegisterExtension
  static final MariaDbBackend BACKEND = new MariaDbBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }
}
