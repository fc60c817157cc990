package dev.baton.spring.boot;

import dev.baton.Baton;
import dev.baton.ConnectionState;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/**
 * The ZooKeeper client's session as Actuator health ({@code /actuator/health/baton}): UP while
 * connected, DOWN while the connection is suspended or the session lost (no lease of this client
 * can be trusted then). It reads the client's state only: a health check sends nothing.
 */
public class BatonHealthIndicator extends AbstractHealthIndicator {
  private final Baton baton;

  public BatonHealthIndicator(Baton baton) {
    super("Baton health check failed");
    this.baton = baton;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    ConnectionState state = baton.connectionState();
    (state.isConnected() ? builder.up() : builder.down())
        .withDetail("state", state.name())
        .withDetail("connectString", baton.connectString())
        .withDetail("sessionId", "0x" + Long.toHexString(baton.sessionId()));
  }
}
