package dev.baton.config;

import dev.baton.Baton;
import dev.baton.BatonException;
import java.nio.file.Path;

/**
 * A config center's snapshot file (see {@link ConfigOptions#withSnapshotFile}) cannot be read:
 * unreadable, not the JSON Baton writes, or written for another path. The message names the file
 * and what is wrong with it; move or delete it to start without it.
 */
public class ConfigSnapshotException extends BatonException {
  private static final long serialVersionUID = 1L;
  private final transient Path file;

  public ConfigSnapshotException(Path file, String message, Throwable cause) {
    super(message, cause);
    this.file = file;
  }

  public Path file() {
    return file;
  }
}
