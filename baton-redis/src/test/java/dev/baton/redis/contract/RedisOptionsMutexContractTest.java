package dev.baton.redis.contract;

import dev.baton.lock.MutexOptions;
import dev.baton.testkit.contract.ContractBackend;
import dev.baton.testkit.contract.OptionsMutexContract;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The mutex contract with local hand-over, the option Redis has. */
class RedisOptionsMutexContractTest extends OptionsMutexContract {
  @RegisterExtension
  static final RedisBackend BACKEND = new RedisBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }

  @Override
  protected MutexOptions options() {
    return MutexOptions.defaults().withLocalHandOver(8);
  }
}
