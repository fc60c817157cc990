package dev.baton.redis.contract;

import dev.baton.testkit.contract.MutexContract;
import dev.baton.testkit.contract.ContractBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

class RedisMutexContractTest extends MutexContract {
  @RegisterExtension
  static final RedisBackend BACKEND = new RedisBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }
}
