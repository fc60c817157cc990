package dev.baton.redis.contract;

import dev.baton.testkit.contract.ChaosContract;
import dev.baton.testkit.contract.ContractBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The chaos run over Redis with an append-only file synced on every write ({@link
 * RedisBackend#persistent()}): a restart keeps what the server acknowledged, so the counter is
 * checked across restarts too.
 */
class RedisAofChaosContractTest extends ChaosContract {
  @RegisterExtension
  static final RedisBackend BACKEND = RedisBackend.persistent();

  @Override
  protected ContractBackend backend() {
    return BACKEND;
  }

  @Override
  protected String replayCommand() {
    return "./mvnw verify -pl baton-redis -am -Dtest=RedisAofChaosContractTest";
  }

  @Override
  protected String reportName() {
    return "redis-aof";
  }
}
