package dev.baton.jdbc.contract;

import dev.baton.Coordinator;
import dev.baton.lock.Mutex;
import dev.baton.lock.MutexOptions;
import dev.baton.testkit.contract.ContractBackend;
import dev.baton.testkit.contract.MutexContract;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The mutex contract on a mutex with local hand-over and caching: the options trade order, never the contract. */
class PostgresOptionsMutexContractTest extends MutexContract {
  @RegisterExtension
  static final PostgresBackend BACKEND = new PostgresBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }

  @Override
  protected Mutex mutex(Coordinator client, String name) {
    return client.mutex(name, MutexOptions.defaults().withLocalHandOver(8).withCaching(Duration.ofMillis(100)));
  }

  /** Local hand-over: the threads of one mutex object wait behind one entry. */
  @Override
  protected int entriesFor(int threads) {
    return 1;
  }
}
