package dev.baton.config;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A live config center instance taking part in gray releases, as it announced itself when opened
 * ({@link ConfigOptions#withInstance}): what {@link GrayRule}s are matched against.
 *
 * @param id the instance's id
 * @param labels its labels (zone, version...)
 */
public record ConfigInstance(String id, Map<String, String> labels) {

  public ConfigInstance {
    Objects.requireNonNull(id, "id must not be null");
    labels = Map.copyOf(new TreeMap<>(Objects.requireNonNull(labels, "labels must not be null")));
  }

  /** Whether {@code rule} gives this instance the candidate. */
  public boolean isReachedBy(GrayRule rule) {
    return rule.matches(id, labels);
  }
}
