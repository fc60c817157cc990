package dev.baton.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/**
 * How a {@link ConfigCenter} keeps its local copy and its keys' history.
 *
 * @param snapshotFile where the local copy is saved after every change and read at start, so a
 *     process can start and serve its config while the ensemble is down; {@code null}: no file
 * @param historyVersions how many revisions of each key its history keeps (see {@link
 *     #withHistory(int)}); 0: no history
 * @param instanceId this config center's id for gray releases ({@link GrayRule}); default: {@code
 *     <host>:<pid>}
 * @param labels this config center's labels for gray releases (zone, version...)
 * @param grayReleases whether it takes part in gray releases (set by {@link #withInstance})
 * @param announced whether, taking part in gray releases, it announces itself as a live instance
 *     (see {@link #withInstance} and {@link #unannounced()})
 */
public record ConfigOptions(Path snapshotFile, int historyVersions, String instanceId, Map<String, String> labels,
    boolean grayReleases, boolean announced) {
  private static final ConfigOptions DEFAULTS = new ConfigOptions(null, 0, defaultInstanceId(), Map.of(), false,
      false);

  public ConfigOptions {
    if (snapshotFile != null && Files.isDirectory(snapshotFile)) {
      throw new IllegalArgumentException("snapshotFile must be a file, was the directory " + snapshotFile);
    }
    Objects.requireNonNull(instanceId, "instanceId must not be null");
    if (instanceId.isBlank()) {
      throw new IllegalArgumentException("instanceId must not be blank");
    }
    labels = Map.copyOf(Objects.requireNonNull(labels, "labels must not be null"));
    if (historyVersions < 0) {
      throw new IllegalArgumentException("historyVersions must not be negative (0: no history), was "
          + historyVersions);
    }
  }

  /** With a snapshot file and no history. */
  public ConfigOptions(Path snapshotFile) {
    this(snapshotFile, 0, defaultInstanceId(), Map.of(), false, false);
  }

  private static String defaultInstanceId() {
    String host;
    try {
      host = java.net.InetAddress.getLocalHost().getHostName();
    } catch (java.io.IOException e) {
      host = "unknown";
    }
    return host + ":" + ProcessHandle.current().pid();
  }

  /**
   * These options, taking part in gray releases ({@link ConfigCenter#grayRelease}) as the
   * instance {@code id} with {@code labels}: rules by id and by percentage use the id, rules by
   * label the labels. Set once, when opened. The config center then also watches {@code
   * <prefix>.gray}, where candidates live (one more persistent watch), and its reads and listeners
   * show the candidate of each key whose rule matches it. While open it announces itself as a
   * live instance: an ephemeral node under {@code <prefix>.instances} holding its id and labels
   * (made again on a new session after expiry, deleted when closed), so that {@link
   * ConfigCenter#grayRelease} refuses a rule no live instance matches and {@link
   * ConfigCenter#grayReach} lists who a release reaches. Without this option a config center sees
   * the released values only, as older clients and plain readers do.
   *
   * @throws IllegalArgumentException if {@code id} is blank
   */
  public ConfigOptions withInstance(String id, Map<String, String> labels) {
    return new ConfigOptions(snapshotFile, historyVersions, id, labels, true, true);
  }

  /** No snapshot file, no history. */
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
    return new ConfigOptions(Objects.requireNonNull(file, "snapshotFile must not be null"), historyVersions,
        instanceId, labels, grayReleases, announced);
  }

  /**
   * These options, with a history of each key: every write through this config center records,
   * in the same ZooKeeper transaction as the write, the value written, its version, the value and
   * version it replaced, who wrote it (host, pid, the session's digest user if any) and when, and
   * the last {@code versions} revisions per key are kept (older ones are removed after each
   * write). See {@link ConfigCenter#history(String)} and {@link ConfigCenter#rollback(String,
   * int)}. The history lives beside the prefix, in {@code <prefix>.history}, so readers of the
   * prefix see only the keys. Writes of other clients (or of config centers without history) are
   * not recorded.
   *
   * @throws IllegalArgumentException if {@code versions} is below 1
   */
  public ConfigOptions withHistory(int versions) {
    if (versions < 1) {
      throw new IllegalArgumentException("history versions must be at least 1 (the revisions kept per key), was "
          + versions);
    }
    return new ConfigOptions(snapshotFile, versions, instanceId, labels, grayReleases, announced);
  }

  /**
   * These options, taking part in gray releases without announcing this config center as a live
   * instance: for tools that write and inspect gray releases rather than serve the config (the
   * CLI, the console), so that they are never counted among the instances a rule reaches.
   *
   * @throws IllegalStateException if these options do not take part in gray releases ({@link
   *     #withInstance} first)
   */
  public ConfigOptions unannounced() {
    if (!grayReleases) {
      throw new IllegalStateException("Only options taking part in gray releases announce an instance: call"
          + " withInstance(id, labels) first");
    }
    return new ConfigOptions(snapshotFile, historyVersions, instanceId, labels, true, false);
  }
}
