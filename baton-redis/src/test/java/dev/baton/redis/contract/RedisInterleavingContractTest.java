package dev.baton.redis.contract;

import dev.baton.testkit.contract.ContractBackend;
import dev.baton.testkit.contract.InterleavingContract;
import org.junit.jupiter.api.extension.RegisterExtension;

class RedisInterleavingContractTest extends InterleavingContract {
  @RegisterExtension
  static final RedisBackend BACKEND = new RedisBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }
}
