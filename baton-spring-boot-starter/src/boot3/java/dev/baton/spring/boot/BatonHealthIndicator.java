package dev.baton.spring.boot;

import dev.baton.Baton;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/**
 * The ZooKeeper client's session as Actuator health ({@code /actuator/health/baton}): UP while
 * connected, DOWN while the connection is suspended or the session lost (no lease of this client
 * can be trusted then). It reads the client's state only: a health check sends nothing.
 */
public class BatonHealthIndicator extends AbstractHealthIndicator {
  private final Baton baton;

  /** An indicator of {@code baton}'s session. */
  public BatonHealthIndicator(Baton baton) {
    super("Baton health check failed");
    this.baton = baton;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    ClientHealth health = ClientHealth.of(baton);
    (health.up() ? builder.up() : builder.down()).withDetails(health.details());
  }
}
