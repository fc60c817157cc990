package dev.baton.config;

import dev.baton.BatonException;

/**
 * A typed getter of {@link ConfigCenter} ({@code getInt}, {@code getLong}, {@code getBoolean},
 * {@code getDuration}) found a value that is not of the type asked for. The message names the
 * key, the value and the type, with an example of a value that would do.
 */
public class ConfigValueException extends BatonException {
  private static final long serialVersionUID = 1L;
  private final String key;
  private final String value;
  private final String type;

  public ConfigValueException(String key, String value, String type, String message, Throwable cause) {
    super(message, cause);
    this.key = key;
    this.value = value;
    this.type = type;
  }

  public String key() {
    return key;
  }

  /** The value as stored. */
  public String value() {
    return value;
  }

  /** The type that was asked for: {@code int}, {@code long}, {@code boolean} or {@code Duration}. */
  public String type() {
    return type;
  }
}
