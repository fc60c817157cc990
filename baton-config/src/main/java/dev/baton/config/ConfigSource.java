package dev.baton.config;

/** Where the values a {@link ConfigCenter} serves come from. */
public enum ConfigSource {
  /** Nothing yet: the ensemble has not been reached, and there was no snapshot file to read. */
  NONE,
  /**
   * The snapshot file: the ensemble has not been reached since the config center was made, so
   * the values are those the file recorded (see {@link ConfigOptions#withSnapshotFile}).
   */
  SNAPSHOT,
  /**
   * The ensemble: the values were loaded from it at least once. They are live while {@link
   * ConfigCenter#isSynced()}; while the connection is down they are the last ones seen.
   */
  ENSEMBLE
}
