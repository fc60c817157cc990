package dev.baton.config;

import dev.baton.BatonException;

/**
 * {@link ConfigCenter#update} found no such key (no node, or only the folder of nested keys).
 * Nothing was written.
 */
public class ConfigKeyMissingException extends BatonException {
  private static final long serialVersionUID = 1L;
  private final String key;
  private final String path;

  public ConfigKeyMissingException(String key, String path, String message) {
    super(message);
    this.key = key;
    this.path = path;
  }

  /** The key, relative to the config center's prefix. */
  public String key() {
    return key;
  }

  /** The key's node, as the client sees it (its namespace left out). */
  public String path() {
    return path;
  }
}
