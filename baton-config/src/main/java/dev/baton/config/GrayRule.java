package dev.baton.config;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.zip.CRC32;

/**
 * Which config center instances see a gray (canary) release's candidate value: those whose
 * labels include all of {@code labels}, those whose id is in {@code ids}, and a stable {@code
 * percent} of all instance ids (an instance is in if its id's bucket, a CRC-32 of the id modulo
 * 100, is below the percentage: raising the percentage only adds instances). An instance matching
 * any of the three sees the candidate. Labels and ids are set when a config center is opened
 * ({@link ConfigOptions#withInstance}).
 *
 * @param labels labels an instance must all have (empty: this criterion matches no one)
 * @param ids instance ids that see the candidate
 * @param percent 0 to 100
 */
public record GrayRule(Map<String, String> labels, Set<String> ids, int percent) {

  public GrayRule {
    labels = Map.copyOf(new TreeMap<>(Objects.requireNonNull(labels, "labels must not be null")));
    ids = Set.copyOf(new TreeSet<>(Objects.requireNonNull(ids, "ids must not be null")));
    if (percent < 0 || percent > 100) {
      throw new IllegalArgumentException("gray percent must be between 0 and 100, was " + percent);
    }
    for (Map.Entry<String, String> label : labels.entrySet()) {
      if (label.getKey().isBlank()) {
        throw new IllegalArgumentException("gray rule label names must not be blank: " + labels);
      }
    }
    if (labels.isEmpty() && ids.isEmpty() && percent == 0) {
      throw new IllegalArgumentException("A gray rule with no labels, no ids and 0 percent matches no instance;"
          + " give labels, ids or a percentage");
    }
  }

  /** The instances with all these labels ({@code Map.of("zone", "eu-1")}). */
  public static GrayRule forLabels(Map<String, String> labels) {
    return new GrayRule(labels, Set.of(), 0);
  }

  /** The instances of these ids. */
  public static GrayRule forIds(String... ids) {
    return new GrayRule(Map.of(), Set.of(ids), 0);
  }

  /** A stable {@code percent} of instances, by id. */
  public static GrayRule forPercent(int percent) {
    return new GrayRule(Map.of(), Set.of(), percent);
  }

  /** Whether the instance of {@code id} with {@code instanceLabels} sees the candidate. */
  public boolean matches(String id, Map<String, String> instanceLabels) {
    if (ids.contains(id)) {
      return true;
    }
    if (!labels.isEmpty() && labels.entrySet().stream()
        .allMatch(label -> label.getValue().equals(instanceLabels.get(label.getKey())))) {
      return true;
    }
    return bucket(id) < percent;
  }

  /** The bucket (0 to 99) of an instance id for the percentage: the same on every machine. */
  public static int bucket(String id) {
    CRC32 crc = new CRC32();
    crc.update(id.getBytes(StandardCharsets.UTF_8));
    return (int) (crc.getValue() % 100);
  }
}
