package dev.baton.redis.contract;

import dev.baton.testkit.contract.CounterContract;
import dev.baton.testkit.contract.ContractBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

class RedisCounterContractTest extends CounterContract {
  @RegisterExtension
  static final RedisBackend BACKEND = RedisBackend.withCounter();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }
}
