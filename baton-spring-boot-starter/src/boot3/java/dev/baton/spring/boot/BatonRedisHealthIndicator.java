package dev.baton.spring.boot;

import dev.baton.redis.RedisBaton;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/**
 * The Redis client's connection as Actuator health ({@code /actuator/health/batonRedis}): UP while
 * connected; DOWN with the reason while the connection is down, SUSPENDED (held leases are SUSPECT
 * and may come back) or LOST (down for the lease TTL: every lease of this client is gone). It reads
 * the client's state only: a health check sends nothing to Redis.
 */
public class BatonRedisHealthIndicator extends AbstractHealthIndicator {
  private final RedisBaton redis;

  /** An indicator of {@code redis}'s connection. */
  public BatonRedisHealthIndicator(RedisBaton redis) {
    super("Baton Redis health check failed");
    this.redis = redis;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    ClientHealth health = ClientHealth.of(redis);
    (health.up() ? builder.up() : builder.down()).withDetails(health.details());
  }
}
