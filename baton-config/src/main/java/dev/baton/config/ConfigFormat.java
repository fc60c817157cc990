package dev.baton.config;

/**
 * The text formats of {@link ConfigCenter#export} and {@link ConfigCenter#importFrom}. Keys are
 * the config center's keys ({@code db/url}), so an export imports back to the same keys; values
 * are text.
 */
public enum ConfigFormat {
  /** Java properties: {@code db/url=jdbc\:h2\:mem} (escaped as {@link java.util.Properties} does). */
  PROPERTIES,
  /**
   * YAML: a map of key to value. On import, nested maps are read too, their names joined with
   * {@code /} ({@code db: {url: x}} is the key {@code db/url}), and scalars taken as text.
   */
  YAML,
  /** JSON: an object of key to value; on import, nested objects as for {@link #YAML}. */
  JSON
}
