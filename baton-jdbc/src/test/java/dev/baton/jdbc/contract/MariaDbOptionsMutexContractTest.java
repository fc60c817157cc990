package dev.baton.jdbc.contract;

import dev.baton.lock.MutexOptions;
import dev.baton.testkit.contract.ContractBackend;
import dev.baton.testkit.contract.OptionsMutexContract;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The mutex contract with local hand-over and caching (another client waits out the 100 ms cache idle: MySQL has no notify). */
class MariaDbOptionsMutexContractTest extends OptionsMutexContract {
  @RegisterExtension
  static final MariaDbBackend BACKEND = new MariaDbBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }

  @Override
  protected MutexOptions options() {
    return MutexOptions.defaults().withLocalHandOver(8).withCaching(Duration.ofMillis(100));
  }
}
