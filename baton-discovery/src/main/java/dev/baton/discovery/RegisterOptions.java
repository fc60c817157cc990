package dev.baton.discovery;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How {@link ServiceRegistry#register(ServiceInstance, RegisterOptions)} writes and keeps an
 * instance: its node's layout, and a health check.
 *
 * @param layout the node's layout
 * @param healthCheck run by this process every {@code healthInterval}, if present
 * @param healthInterval the pause between checks
 */
public record RegisterOptions(InstanceLayout layout, Optional<HealthCheck> healthCheck, Duration healthInterval) {
  private static final RegisterOptions DEFAULTS =
      new RegisterOptions(InstanceLayout.CURATOR_JSON, Optional.empty(), Duration.ofSeconds(10));

  public RegisterOptions {
    Objects.requireNonNull(layout, "layout must not be null");
    Objects.requireNonNull(healthCheck, "healthCheck must not be null");
    Objects.requireNonNull(healthInterval, "healthInterval must not be null");
    if (healthInterval.isNegative() || healthInterval.isZero()) {
      throw new IllegalArgumentException("healthInterval must be positive, was " + healthInterval);
    }
    if (layout == InstanceLayout.NAMING && healthCheck.isPresent()) {
      throw new IllegalArgumentException("A health check marks an instance down through curator-x-discovery's"
          + " enabled flag and payload, which the naming layout has no place for; use CURATOR_JSON");
    }
  }

  /** Curator's JSON layout, no health check. */
  public static RegisterOptions defaults() {
    return DEFAULTS;
  }

  /** These options, in {@code layout}. */
  public RegisterOptions withLayout(InstanceLayout layout) {
    return new RegisterOptions(layout, healthCheck, healthInterval);
  }

  /**
   * These options, with {@code check} run by this process: once before the node is created, then
   * every {@code interval} (after the previous check ends). A failing check marks the instance
   * down without dropping its node: {@code enabled} false (pickers of Baton and Curator skip it)
   * and the payload's {@code "health"} {@code "DOWN"} with the reason in {@code "healthDetail"};
   * a passing check brings it back ({@code "health": "UP"}, enabled as registered). Each change
   * is one write of the node; a check that gives the same result writes nothing. If the
   * connection is down when the state changes, the write waits as the registration's updates do.
   *
   * @throws IllegalArgumentException if {@code interval} is not positive
   */
  public RegisterOptions withHealthCheck(HealthCheck check, Duration interval) {
    return new RegisterOptions(layout, Optional.of(Objects.requireNonNull(check, "check must not be null")),
        interval);
  }
}
