package dev.baton.internal.config;

import dev.baton.ZkPaths;
import dev.baton.config.ConfigEntry;
import dev.baton.config.ConfigInstance;
import dev.baton.config.ConfigKeyMissingException;
import dev.baton.config.ConfigRevision;
import dev.baton.config.GrayRelease;
import dev.baton.config.GrayRule;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * The config center's operations on a key's releases: its history and rollback ({@link
 * ConfigHistory}), and its gray releases ({@link ConfigGray}); writes go through {@link
 * ConfigWrites} as every write does. See {@link dev.baton.config.ConfigCenter} for the contract.
 */
final class ConfigReleases {
  private final String prefix;
  private final int maxPacket;
  private final ConfigWrites writes;
  /** Null without history. */
  private final ConfigHistory history;
  /** Both null unless the config center takes part in gray releases. */
  private final ConfigGray gray;
  private final ConfigInstances instances;
  /** The key's released node in the local copy, or null; checks the key and the center. */
  private final Function<String, ConfigTree.Node> node;

  ConfigReleases(String prefix, int maxPacket, ConfigWrites writes, ConfigHistory history, ConfigGray gray,
      ConfigInstances instances, Function<String, ConfigTree.Node> node) {
    this.instances = instances;
    this.prefix = prefix;
    this.maxPacket = maxPacket;
    this.writes = writes;
    this.history = history;
    this.gray = gray;
    this.node = node;
  }

  /**
   * With history a write's transaction carries the value three times (the node, the revision's
   * value and, in the next write's revision, the value it replaces): a value that cannot fit
   * thrice in ZooKeeper's packet is refused before anything is sent.
   */
  String checkHistorySize(String key, String value) {
    if (history != null && value != null) {
      long bytes = ConfigValues.encode(value).length;
      long max = (maxPacket - 4096L) / 3;
      if (bytes > max) {
        throw new IllegalArgumentException("The value for config key '" + key + "' is " + bytes + " bytes"
            + " (UTF-8), over the " + max + " bytes a config center with history can write (each write's"
            + " transaction carries it with its revision, within ZooKeeper's jute.maxbuffer of " + maxPacket
            + " bytes); nothing was written");
      }
    }
    return value;
  }

  // ---- history ------------------------------------------------------------------------------

  List<ConfigRevision> history(String key) {
    node.apply(key); // checks the key
    return historyOrFail().read(key);
  }

  ConfigEntry rollback(String key, int toVersion) {
    node.apply(key); // checks the key
    if (toVersion < 0) {
      throw new IllegalArgumentException("toVersion must not be negative, was " + toVersion + " (config key '"
          + key + "'); take it from history(key)");
    }
    List<ConfigRevision> revisions = historyOrFail().read(key);
    Optional<String> value = ConfigRollback.valueAt(revisions, toVersion);
    if (value.isEmpty()) {
      throw new IllegalArgumentException("Version " + toVersion + " of config key '" + key + "' is not kept in"
          + " its history under " + ConfigHistory.clientRoot(prefix) + " (versions kept: "
          + ConfigRollback.versionsKept(revisions) + "); nothing was written");
    }
    return writes.set(key, checkHistorySize(key, value.get()), "rollback to version " + toVersion);
  }

  // ---- gray releases ------------------------------------------------------------------------

  void grayRelease(String key, String candidate, GrayRule rule) {
    ConfigGray releases = grayOrFail();
    Objects.requireNonNull(candidate, "candidate must not be null");
    Objects.requireNonNull(rule, "rule must not be null");
    ConfigTree.Node released = node.apply(key);
    if (released == null || !released.isKey()) {
      throw new ConfigKeyMissingException(key, ZkPaths.join(prefix, key), "config key '" + key + "' has no"
          + " released value at " + ZkPaths.join(prefix, key) + " to release a candidate beside; set it first."
          + " Nothing was written");
    }
    checkHistorySize(key, candidate);
    ConfigValues.checkSize(key, ZkPaths.join(prefix, key), ConfigValues.encode(candidate), (maxPacket - 4096) / 2,
        maxPacket);
    List<ConfigInstance> live = instances.live();
    if (live.stream().noneMatch(instance -> instance.isReachedBy(rule))) {
      throw new IllegalArgumentException("The gray rule " + rule + " for config key '" + key + "' matches no live"
          + " instance under " + ConfigInstances.clientRoot(prefix) + " (live: " + (live.isEmpty() ? "none"
          : live) + "); nothing was written");
    }
    releases.write(new GrayRelease(key, candidate, rule), released.czxid());
  }

  Optional<GrayRelease> gray(String key) {
    ConfigGray releases = grayOrFail();
    return Optional.ofNullable(releases.release(key, node.apply(key)));
  }

  List<ConfigInstance> grayInstances() {
    grayOrFail();
    return instances.live();
  }

  List<ConfigInstance> grayReach(String key) {
    ConfigGray releases = grayOrFail();
    GrayRelease release = releases.release(key, node.apply(key));
    return release == null ? List.of() : instances.reachedBy(release.rule());
  }

  /**
   * Promotes the candidate the ensemble holds, not the one this copy last heard of (it may have
   * been aborted or replaced meanwhile): reads the gray node, then releases its candidate in one
   * transaction with the node's removal at the version read, so that a release changed in between
   * is refused rather than released, or its successor's node deleted.
   */
  ConfigEntry promote(String key) {
    ConfigGray releases = grayOrFail();
    node.apply(key); // checks the key
    ConfigGray.Current current = releases.read(key);
    if (current == null || current.entry().release() == null) {
      throw noGrayRelease(key, "");
    }
    String candidate = checkHistorySize(key, current.entry().release().candidate());
    return writes.promote(key, candidate, current.entry(), releases.removal(key, current.version()), () -> {
      ConfigGray.Current now = releases.read(key);
      return now != null && now.version() == current.version();
    }, why -> noGrayRelease(key, why));
  }

  private IllegalStateException noGrayRelease(String key, String why) {
    return new IllegalStateException("No gray release of config key '" + key + "' under " + prefix
        + " is in progress" + why + "; nothing was promoted");
  }

  boolean abort(String key) {
    ConfigGray releases = grayOrFail();
    node.apply(key); // checks the key
    return releases.remove(key);
  }

  private ConfigGray grayOrFail() {
    if (gray == null) {
      throw new IllegalStateException("The config center on " + prefix + " takes no part in gray releases: open"
          + " it with ConfigOptions.defaults().withInstance(id, labels)");
    }
    return gray;
  }

  private ConfigHistory historyOrFail() {
    if (history == null) {
      throw new IllegalStateException("The config center on " + prefix + " keeps no history: open it with"
          + " ConfigOptions.defaults().withHistory(versions)");
    }
    return history;
  }
}
