package dev.baton.config;

import dev.baton.NodeMissingException;

/**
 * {@link ConfigCenter#update} found no such key (no node, or only the folder of nested keys).
 * Nothing was written.
 */
public class ConfigKeyMissingException extends NodeMissingException {
  private static final long serialVersionUID = 1L;
  private final String key;

  public ConfigKeyMissingException(String key, String path, String message) {
    super(path, message, null);
    this.key = key;
  }

  /** The key, relative to the config center's prefix. */
  public String key() {
    return key;
  }
}
