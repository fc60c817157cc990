package dev.baton.spring.boot;

import dev.baton.ConnectionState;
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

  public BatonRedisHealthIndicator(RedisBaton redis) {
    super("Baton Redis health check failed");
    this.redis = redis;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    ConnectionState state = redis.connectionState();
    builder.withDetail("state", state.name()).withDetail("address", redis.address());
    if (state.isConnected()) {
      builder.up();
      return;
    }
    builder.down();
    redis.disconnectedSince().ifPresent(since -> builder.withDetail("since", since.toString()));
    builder.withDetail("reason", state == ConnectionState.LOST
        ? "no connection to " + redis.address() + " for longer than the lease TTL: every lock of this client is lost"
        : "connection to " + redis.address() + " dropped; reconnecting, held locks are in doubt");
  }
}
