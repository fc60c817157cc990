package dev.baton.redis.contract;

import dev.baton.testkit.contract.BadInputContract;
import dev.baton.testkit.contract.ContractBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

class RedisBadInputContractTest extends BadInputContract {
  @RegisterExtension
  static final RedisBackend BACKEND = new RedisBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }
}
