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
 * @param healthDownAfter how many failed checks in a row mark an instance that is up down
 * @param healthUpAfter how many passing checks in a row mark an instance that is down up
 */
public record RegisterOptions(InstanceLayout layout, Optional<HealthCheck> healthCheck, Duration healthInterval,
    int healthDownAfter, int healthUpAfter) {
  /**
   * Failed checks in a row that mark an instance down by default: one failed check (a GC pause,
   * a slow dependency) is not enough, as with Kubernetes' {@code failureThreshold} and Nacos'
   * check count.
   */
  public static final int DEFAULT_DOWN_AFTER = 3;
  /** Passing checks in a row that mark an instance up again by default: a flapping one stays down. */
  public static final int DEFAULT_UP_AFTER = 2;

  private static final RegisterOptions DEFAULTS = new RegisterOptions(InstanceLayout.CURATOR_JSON, Optional.empty(),
      Duration.ofSeconds(10), DEFAULT_DOWN_AFTER, DEFAULT_UP_AFTER);

  public RegisterOptions {
    Objects.requireNonNull(layout, "layout must not be null");
    Objects.requireNonNull(healthCheck, "healthCheck must not be null");
    Objects.requireNonNull(healthInterval, "healthInterval must not be null");
    if (healthInterval.isNegative() || healthInterval.isZero()) {
      throw new IllegalArgumentException("healthInterval must be positive, was " + healthInterval);
    }
    if (healthDownAfter < 1) {
      throw new IllegalArgumentException("healthDownAfter must be at least 1, was " + healthDownAfter);
    }
    if (healthUpAfter < 1) {
      throw new IllegalArgumentException("healthUpAfter must be at least 1, was " + healthUpAfter);
    }
    if (layout == InstanceLayout.NAMING && healthCheck.isPresent()) {
      throw new IllegalArgumentException("A health check marks an instance down through curator-x-discovery's"
          + " enabled flag and payload, which the naming layout has no place for; use CURATOR_JSON");
    }
  }

  /** These options with the default thresholds ({@link #DEFAULT_DOWN_AFTER}, {@link #DEFAULT_UP_AFTER}). */
  public RegisterOptions(InstanceLayout layout, Optional<HealthCheck> healthCheck, Duration healthInterval) {
    this(layout, healthCheck, healthInterval, DEFAULT_DOWN_AFTER, DEFAULT_UP_AFTER);
  }

  /** Curator's JSON layout, no health check. */
  public static RegisterOptions defaults() {
    return DEFAULTS;
  }

  /** These options, in {@code layout}. */
  public RegisterOptions withLayout(InstanceLayout layout) {
    return new RegisterOptions(layout, healthCheck, healthInterval, healthDownAfter, healthUpAfter);
  }

  /**
   * These options, with {@code check} run by this process: once before the node is created
   * (which registers the instance up or down as that check says), then every {@code interval}
   * (after the previous check ends). {@link #healthDownAfter()} failed checks in a row (3 unless
   * {@link #withHealthThresholds} says otherwise) mark the instance down without dropping its
   * node: {@code enabled} false (pickers of Baton and Curator skip it) and the payload's {@code
   * "health"} {@code "DOWN"} with the last failure's reason in {@code "healthDetail"}; {@link
   * #healthUpAfter()} passing checks in a row (2 unless said otherwise) bring it back ({@code
   * "health": "UP"}, enabled as registered). Each turn is one write of the node; a check that does
   * not turn the health writes nothing.
   *
   * <p>Connection loss and timeouts: a turn is written in the background once the connection is
   * back, as the registration's updates are; checks go on meanwhile, and the last turn is what is
   * written. Neither the checks nor {@link Registration#close()} wait for such a write.
   *
   * @throws IllegalArgumentException if {@code interval} is not positive
   */
  public RegisterOptions withHealthCheck(HealthCheck check, Duration interval) {
    return new RegisterOptions(layout, Optional.of(Objects.requireNonNull(check, "check must not be null")),
        interval, healthDownAfter, healthUpAfter);
  }

  /**
   * These options, marking the instance down after {@code downAfter} failed checks in a row and
   * up again after {@code upAfter} passing checks in a row; 1 and 1 follow every check.
   *
   * @throws IllegalArgumentException if either is less than 1
   */
  public RegisterOptions withHealthThresholds(int downAfter, int upAfter) {
    return new RegisterOptions(layout, healthCheck, healthInterval, downAfter, upAfter);
  }
}
