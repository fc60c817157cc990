package dev.baton.redis.contract;

import dev.baton.testkit.contract.ContractBackend;
import dev.baton.testkit.contract.LeaseContract;
import org.junit.jupiter.api.extension.RegisterExtension;

class RedisLeaseContractTest extends LeaseContract {
  @RegisterExtension
  static final RedisBackend BACKEND = new RedisBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }
}
