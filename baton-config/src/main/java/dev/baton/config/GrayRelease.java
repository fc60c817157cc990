package dev.baton.config;

import java.util.Objects;

/**
 * A key's gray release in progress: the candidate value, and which instances see it.
 *
 * @param key the key
 * @param candidate the value the matching instances see instead of the released one
 * @param rule which instances match
 */
public record GrayRelease(String key, String candidate, GrayRule rule) {
  public GrayRelease {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(candidate, "candidate");
    Objects.requireNonNull(rule, "rule");
  }
}
