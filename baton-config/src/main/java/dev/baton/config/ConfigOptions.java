package dev.baton.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * How a {@link ConfigCenter} keeps its local copy.
 *
 * @param snapshotFile where the local copy is saved after every change and read at start, so a
 *     process can start and serve its config while the ensemble is down; {@code null}: no file
 */
public record ConfigOptions(Path snapshotFile) {
  private static final ConfigOptions DEFAULTS = new ConfigOptions(null);

  public ConfigOptions {
    if (snapshotFile != null && Files.isDirectory(snapshotFile)) {
      throw new IllegalArgumentException("snapshotFile must be a file, was the directory " + snapshotFile);
    }
  }

  /** No snapshot file. */
  public static ConfigOptions defaults() {
    return DEFAULTS;
  }

  /**
   * These options, with the local copy saved in {@code file}: rewritten whole (JSON, into a
   * temporary file then renamed over it, so a crash never leaves half a file) after every change
   * while the copy follows the ensemble, and read when the config center is made. Its directory
   * is created if missing. Use one file per config center (the file records the path it is for).
   *
   * @throws IllegalArgumentException if {@code file} is a directory
   */
  public ConfigOptions withSnapshotFile(Path file) {
    return new ConfigOptions(Objects.requireNonNull(file, "snapshotFile must not be null"));
  }
}
