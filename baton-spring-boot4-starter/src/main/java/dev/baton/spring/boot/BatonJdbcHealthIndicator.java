package dev.baton.spring.boot;

import dev.baton.jdbc.JdbcBaton;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The SQL client's connection as Actuator health ({@code /actuator/health/batonJdbc}): UP while its
 * statements succeed; DOWN while they fail (SUSPENDED: held leases are SUSPECT and may come back)
 * or since the lease TTL (LOST: every lease of this client is gone). It reads the client's state
 * only: a health check sends no statement.
 */
public class BatonJdbcHealthIndicator extends AbstractHealthIndicator {
  private final JdbcBaton jdbc;

  /** An indicator of {@code jdbc}'s connection. */
  public BatonJdbcHealthIndicator(JdbcBaton jdbc) {
    super("Baton JDBC health check failed");
    this.jdbc = jdbc;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    ClientHealth health = ClientHealth.of(jdbc);
    (health.up() ? builder.up() : builder.down()).withDetails(health.details());
  }
}
