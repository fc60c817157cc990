package dev.baton.discovery;

import java.util.Objects;
import java.util.Optional;

/**
 * How {@link ServiceView#pickWith(PickOptions)} chooses: a strategy, the caller's zone, and a
 * protection threshold.
 *
 * <p>The order of the rules: first the live, enabled instances; if they are fewer than {@code
 * protectionThreshold} of all the service's instances, all of them instead (as Nacos does: when
 * most instances are marked down, the few left would be overloaded, and the marks may be wrong);
 * then, if a zone is given, those of the payload's {@code "zone"} equal to it, if there are any
 * (else all the candidates: a zone with nothing left falls back to the others); then the strategy.
 *
 * @param strategy how one instance is chosen among the candidates
 * @param zone the caller's zone, compared with the payload's {@code "zone"}
 * @param protectionThreshold between 0 (no protection) and 1
 */
public record PickOptions(PickStrategy strategy, Optional<String> zone, double protectionThreshold) {

  public PickOptions {
    Objects.requireNonNull(strategy, "strategy must not be null");
    Objects.requireNonNull(zone, "zone must not be null");
    if (!(protectionThreshold >= 0 && protectionThreshold <= 1)) {
      throw new IllegalArgumentException("protectionThreshold must be between 0 and 1, was " + protectionThreshold);
    }
  }

  /** {@code strategy}, any zone, no protection. */
  public static PickOptions of(PickStrategy strategy) {
    return new PickOptions(strategy, Optional.empty(), 0);
  }

  /** These options, preferring instances of {@code zone}. */
  public PickOptions preferringZone(String zone) {
    Objects.requireNonNull(zone, "zone must not be null");
    if (zone.isBlank()) {
      throw new IllegalArgumentException("zone must not be blank");
    }
    return new PickOptions(strategy, Optional.of(zone), protectionThreshold);
  }

  /** These options, with the protection threshold {@code share} (0 to 1, e.g. 0.5). */
  public PickOptions withProtectionThreshold(double share) {
    return new PickOptions(strategy, zone, share);
  }
}
