package dev.baton.jdbc.contract;

import dev.baton.lock.MutexOptions;
import dev.baton.testkit.contract.ContractBackend;
import dev.baton.testkit.contract.OptionsMutexContract;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The mutex contract with local hand-over and caching. */
class PostgresOptionsMutexContractTest extends OptionsMutexContract {
  @RegisterExtension
  static final PostgresBackend BACKEND = new PostgresBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }

  @Override
  protected MutexOptions options() {
    return MutexOptions.defaults().withLocalHandOver(8).withCaching(Duration.ofMillis(100));
  }
}
