package dev.baton.redis.contract;

import dev.baton.testkit.contract.MultiLockContract;
import dev.baton.testkit.contract.ContractBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

class RedisMultiLockContractTest extends MultiLockContract {
  @RegisterExtension
  static final RedisBackend BACKEND = new RedisBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }
}
