package dev.baton.redis.contract;

import dev.baton.testkit.contract.ReadWriteLockContract;
import dev.baton.testkit.contract.ContractBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

class RedisReadWriteLockContractTest extends ReadWriteLockContract {
  @RegisterExtension
  static final RedisBackend BACKEND = new RedisBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }
}
