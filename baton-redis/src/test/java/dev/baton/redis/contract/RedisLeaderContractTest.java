package dev.baton.redis.contract;

import dev.baton.testkit.contract.LeaderContract;
import dev.baton.testkit.contract.ContractBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

class RedisLeaderContractTest extends LeaderContract {
  @RegisterExtension
  static final RedisBackend BACKEND = new RedisBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }
}
