package dev.baton.config;

import dev.baton.NodeExistsException;

/**
 * {@link ConfigCenter#create} found the key already there (or its name taken by the folder of
 * nested keys). Nothing was written.
 */
public class ConfigKeyExistsException extends NodeExistsException {
  private static final long serialVersionUID = 1L;
  private final String key;

  public ConfigKeyExistsException(String key, String path, String message) {
    super(path, message, null);
    this.key = key;
  }

  /** The key, relative to the config center's prefix. */
  public String key() {
    return key;
  }
}
