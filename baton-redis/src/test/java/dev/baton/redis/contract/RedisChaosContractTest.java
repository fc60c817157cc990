package dev.baton.redis.contract;

import dev.baton.testkit.contract.ChaosContract;
import dev.baton.testkit.contract.ContractBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

class RedisChaosContractTest extends ChaosContract {
  @RegisterExtension
  static final RedisBackend BACKEND = new RedisBackend();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }

  @Override
  protected String replayCommand() {
    return "./mvnw verify -pl baton-redis -am -Dtest=RedisChaosContractTest";
  }
}
