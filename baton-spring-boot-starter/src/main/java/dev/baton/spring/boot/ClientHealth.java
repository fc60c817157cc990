package dev.baton.spring.boot;

import dev.baton.Baton;
import dev.baton.ConnectionState;
import dev.baton.jdbc.JdbcBaton;
import dev.baton.redis.RedisBaton;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a client's health indicator reports, worked out once for every Spring Boot generation:
 * Boot 4 moved {@code HealthIndicator} to another package, so each starter has its own indicator,
 * and both hand this to their {@code Health.Builder}. It reads the client's state only: a health
 * check sends nothing to a server.
 */
record ClientHealth(boolean up, Map<String, Object> details) {

  /** The ZooKeeper client: UP while connected, DOWN while suspended or lost. */
  static ClientHealth of(Baton baton) {
    ConnectionState state = baton.connectionState();
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("state", state.name());
    details.put("connectString", baton.connectString());
    details.put("sessionId", "0x" + Long.toHexString(baton.sessionId()));
    return new ClientHealth(state.isConnected(), details);
  }

  /** The Redis client: UP while connected; DOWN with since when and why while not. */
  static ClientHealth of(RedisBaton redis) {
    ConnectionState state = redis.connectionState();
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("state", state.name());
    details.put("address", redis.address());
    if (state.isConnected()) {
      return new ClientHealth(true, details);
    }
    redis.disconnectedSince().ifPresent(since -> details.put("since", since.toString()));
    details.put("reason", state == ConnectionState.LOST
        ? "no connection to " + redis.address() + " for longer than the lease TTL: every lock of this client is lost"
        : "connection to " + redis.address() + " dropped; reconnecting, held locks are in doubt");
    return new ClientHealth(false, details);
  }

  /** The SQL client: UP while its statements succeed; DOWN with why while they fail. */
  static ClientHealth of(JdbcBaton jdbc) {
    ConnectionState state = jdbc.connectionState();
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("state", state.name());
    details.put("database", jdbc.backend());
    details.put("table", jdbc.table());
    if (state.isConnected()) {
      return new ClientHealth(true, details);
    }
    details.put("reason", state == ConnectionState.LOST
        ? "no statement succeeded for longer than the lease TTL: every lock of this client is lost"
        : "statements fail; retrying, held locks are in doubt");
    return new ClientHealth(false, details);
  }
}
