package dev.baton.internal.config;

import dev.baton.BatonInterruptedException;
import dev.baton.FailureListener;
import dev.baton.config.ConfigBinding;
import dev.baton.config.ConfigCenter;
import dev.baton.config.ConfigEntry;
import dev.baton.config.ConfigFormat;
import dev.baton.config.ConfigInstance;
import dev.baton.config.ConfigListener;
import dev.baton.config.ConfigOptions;
import dev.baton.config.ConfigRevision;
import dev.baton.config.ConfigSource;
import dev.baton.config.GrayRelease;
import dev.baton.config.GrayRule;
import dev.baton.config.ImportOptions;
import dev.baton.config.ImportPlan;
import dev.baton.internal.cache.NodeTree;
import dev.baton.internal.cache.SerialListeners;
import dev.baton.internal.cache.TreeSync;
import dev.baton.internal.session.Durations;
import dev.baton.internal.session.NodeSizes;
import dev.baton.internal.session.Session;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The config center: reads from the {@link ConfigTree} that a {@link TreeSync} keeps; writes
 * ({@link ConfigWrites}) whose replies update that copy on their way (read-your-writes); the
 * snapshot file ({@link ConfigSnapshotWriter}); the listeners. See {@link ConfigCenter} for the
 * contract.
 */
public final class ZkConfigCenter implements ConfigCenter, TreeSync.Sink<ConfigTree.Node> {
  private static final Logger log = LoggerFactory.getLogger(ZkConfigCenter.class);
  private final Session session;
  private final String prefix;
  private final String serverPrefix;
  private final Path snapshotFile;
  private final ConfigTree tree = new ConfigTree();
  /** A listener and the keys it listens to. */
  private record Subscriber(ConfigListener listener, java.util.function.Predicate<String> keys) {}

  private final SerialListeners<Subscriber, ConfigTree.Change> listeners = new SerialListeners<>((s, change) -> {
    if (s.keys().test(change.key())) {
      s.listener().changed(change.key(), change.oldValue(), change.newValue());
    }
  });
  private final TreeSync<ConfigTree.Node> sync;
  private final ConfigWrites writes;
  private final ConfigReleases releases;
  private final ConfigImport imports;
  /** All null unless the config center takes part in gray releases. */
  private final GrayView grayView;
  private final ConfigGray gray;
  private final ConfigInstances instances;
  private final boolean announced;
  /** Null without a snapshot file. */
  private final ConfigSnapshotWriter snapshots;
  private volatile ConfigSource source = ConfigSource.NONE;
  private volatile boolean closed;

  private ZkConfigCenter(Session session, String prefix, ConfigOptions options) {
    this.session = session;
    this.prefix = prefix;
    this.serverPrefix = session.settings().onServer(prefix);
    this.snapshotFile = options.snapshotFile();
    this.sync = new TreeSync<>(session, serverPrefix, TreeSync.Scope.DESCENDANTS, tree.nodes(),
        (key, data, stat) -> ConfigTree.Node.of(data, stat), this);
    // The limit of this client's ZooKeeper handle: its own jute.maxbuffer, else the JVM's.
    int maxPacket = NodeSizes.maxPacket(session.settings());
    if (options.grayReleases()) {
      this.grayView = new GrayView(options.instanceId(), options.labels(), tree, listeners::deliver);
      this.gray = new ConfigGray(session, prefix, serverPrefix, grayView);
      grayView.follow(gray, sync);
      this.instances = new ConfigInstances(session, prefix, serverPrefix, options.instanceId(), options.labels());
    } else {
      this.grayView = null;
      this.gray = null;
      this.instances = null;
    }
    this.announced = instances != null && options.announced();
    ConfigHistory history = options.historyVersions() == 0 ? null
        : new ConfigHistory(session, prefix, serverPrefix, options.historyVersions());
    ConfigRequests requests = new ConfigRequests(session, sync, tree, history, prefix, maxPacket, () -> {
      checkNotClosed();
      session.checkOpen();
    });
    this.writes = new ConfigWrites(requests, tree);
    this.releases = new ConfigReleases(prefix, maxPacket, writes, history, gray, instances, this::node);
    this.imports = new ConfigImport(session, prefix, tree, requests, history, maxPacket);
    this.snapshots = snapshotFile == null ? null
        : new ConfigSnapshotWriter(snapshotFile, serverPrefix, tree, sync, session.eventExecutor());
  }

  /**
   * Makes a config center on {@code prefix}: reads the snapshot file if there is one, starts
   * following the ensemble, and if the client is connected waits for the first load (at most the
   * client's connection timeout, and only while the connection lasts).
   *
   * @throws dev.baton.config.ConfigSnapshotException naming the file if it exists but cannot be used
   */
  public static ZkConfigCenter open(Session session, String prefix, ConfigOptions options) {
    Objects.requireNonNull(options, "options must not be null");
    ZkConfigCenter center = new ZkConfigCenter(session, prefix, options);
    center.start();
    return center;
  }

  private void start() {
    if (snapshotFile != null) {
      Map<String, ConfigTree.Node> saved = ConfigSnapshotFile.read(snapshotFile, serverPrefix);
      if (saved != null) {
        tree.load(saved);
        source = ConfigSource.SNAPSHOT;
      }
    }
    if (gray != null) {
      gray.start();
    }
    sync.start();
    if (announced) {
      instances.announce();
    }
    if (session.state().isConnected()) {
      long deadline = System.nanoTime() + Durations.timeoutNanos(session.settings().connectionTimeout());
      try {
        boolean loaded = sync.awaitSynced(deadline, true) && (gray == null || gray.awaitSynced(deadline, true));
        if (announced) {
          instances.awaitAnnounced(deadline); // so a gray release right after opening counts this instance
        }
        Optional<RuntimeException> refused = sync.failure.failure();
        if (refused.isPresent()) {
          close();
          throw refused.get();
        }
        if (!loaded) {
          log.warn("The config under {} is not loaded yet ({}); serving {} until it is", prefix,
              session.state(), source == ConfigSource.SNAPSHOT ? "the snapshot " + snapshotFile : "no values");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        close();
        throw new BatonInterruptedException("Interrupted while loading the config under " + prefix, e);
      }
    }
  }

  @Override
  public String prefix() {
    return prefix;
  }

  // ---- reads --------------------------------------------------------------------------------

  @Override
  public Optional<String> get(String key) {
    return Optional.ofNullable(value(key));
  }

  @Override
  public String get(String key, String defaultValue) {
    return typed(key, defaultValue, (k, value) -> value);
  }

  @Override
  public int getInt(String key, int defaultValue) {
    return typed(key, defaultValue, ConfigValues::parseInt);
  }

  @Override
  public long getLong(String key, long defaultValue) {
    return typed(key, defaultValue, ConfigValues::parseLong);
  }

  @Override
  public boolean getBoolean(String key, boolean defaultValue) {
    return typed(key, defaultValue, ConfigValues::parseBoolean);
  }

  @Override
  public Duration getDuration(String key, Duration defaultValue) {
    return typed(key, defaultValue, ConfigValues::parseDuration);
  }

  /** The value of {@code key} parsed by {@code parse} (which names the key if it is malformed), or the default. */
  private <T> T typed(String key, T defaultValue, java.util.function.BiFunction<String, String, T> parse) {
    String value = value(key);
    return value == null ? defaultValue : parse.apply(key, value);
  }

  @Override
  public List<String> getList(String key, List<String> defaultValue) {
    return typed(key, defaultValue, ConfigValues::parseList);
  }

  @Override
  public Map<String, String> getMap(String key, Map<String, String> defaultValue) {
    return typed(key, defaultValue, ConfigValues::parseMap);
  }

  @Override
  public Map<String, String> snapshot(String keyPrefix) {
    Objects.requireNonNull(keyPrefix, "keyPrefix must not be null");
    ConfigValues.validateKey(prefix, keyPrefix);
    Map<String, String> below = new java.util.TreeMap<>();
    snapshot().forEach((key, value) -> {
      if (ConfigValues.isAtOrBelow(key, keyPrefix)) {
        below.put(key, value);
      }
    });
    return Collections.unmodifiableMap(below);
  }

  @Override
  public Optional<ConfigEntry> entry(String key) {
    ConfigTree.Node node = node(key);
    // The released value, even where this instance sees a candidate: the version is the released
    // node's, and a compare-and-set on it must not publish a value based on the candidate.
    return node == null || !node.isKey() ? Optional.empty() : Optional.of(new ConfigEntry(key, node.value(),
        node.version()));
  }

  @Override
  public Map<String, String> snapshot() {
    checkNotClosed();
    return Collections.unmodifiableMap(grayView == null ? tree.values() : grayView.overlay(tree.values()));
  }

  private String value(String key) {
    ConfigTree.Node node = node(key);
    return grayView != null ? grayView.value(key, node) : node == null ? null : node.value();
  }

  /**
   * The key's node, or null. Every key in the tree came from a valid node path, so only a key
   * that is not there needs checking: a read of a present key stays one map lookup (checking
   * first built the key's full path on every read, and took four times as long).
   */
  private ConfigTree.Node node(String key) {
    checkNotClosed();
    Objects.requireNonNull(key, "config key must not be null");
    ConfigTree.Node node = tree.node(key);
    if (node == null) {
      ConfigValues.validateKey(prefix, key);
    }
    return node;
  }

  // ---- writes -------------------------------------------------------------------------------

  @Override
  public ConfigEntry create(String key, String value) {
    return writes.create(key, checkHistorySize(key, value));
  }

  @Override
  public ConfigEntry update(String key, String value) {
    return writes.update(key, checkHistorySize(key, value));
  }

  @Override
  public ConfigEntry set(String key, String value) {
    return writes.set(key, checkHistorySize(key, value));
  }

  @Override
  public boolean compareAndSet(String key, int expectedVersion, String value) {
    return writes.compareAndSet(key, expectedVersion, checkHistorySize(key, value));
  }

  /** See {@link ConfigReleases#checkHistorySize}. */
  private String checkHistorySize(String key, String value) {
    return releases.checkHistorySize(key, value);
  }

  @Override
  public <T extends Record> ConfigBinding<T> bind(String keyPrefix, Class<T> type) {
    Objects.requireNonNull(keyPrefix, "keyPrefix must not be null");
    Objects.requireNonNull(type, "type must not be null");
    ConfigValues.validateKey(prefix, keyPrefix);
    checkNotClosed();
    return new ConfigBinder<>(this, keyPrefix, type).start();
  }

  // ---- import and export --------------------------------------------------------------------

  @Override
  public String export(String keyPrefix, ConfigFormat format) {
    Objects.requireNonNull(keyPrefix, "keyPrefix must not be null");
    Objects.requireNonNull(format, "format must not be null");
    return ConfigText.write(keyPrefix.isEmpty() ? snapshot() : snapshot(keyPrefix), format);
  }

  @Override
  public int importFrom(String text, ConfigFormat format) {
    return importFrom(text, format, ImportOptions.defaults()).size();
  }

  @Override
  public ImportPlan importFrom(String text, ConfigFormat format, ImportOptions options) {
    return imports.write(plan(text, format, options));
  }

  @Override
  public ImportPlan planImport(String text, ConfigFormat format, ImportOptions options) {
    return plan(text, format, options).plan();
  }

  private ConfigImport.Planned plan(String text, ConfigFormat format, ImportOptions options) {
    Objects.requireNonNull(text, "text must not be null");
    Objects.requireNonNull(format, "format must not be null");
    Objects.requireNonNull(options, "options must not be null");
    checkNotClosed();
    session.checkOpen();
    ConfigText.Read read = ConfigText.read(text, format);
    awaitCopyBeforeImport();
    return imports.plan(read, options);
  }

  /**
   * An import compares with the copy and writes on its versions: after a reconnection (say, right
   * after an import whose outcome was unknown) a copy not yet reloaded would make every batch
   * fail as a conflict. So wait for it, at most the connection timeout; then go on regardless (a
   * stale version still only fails its batch, harmlessly).
   */
  private void awaitCopyBeforeImport() {
    try {
      sync.awaitSynced(System.nanoTime() + Durations.timeoutNanos(session.settings().connectionTimeout()), false);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BatonInterruptedException("Interrupted before an import into " + prefix + "; nothing was written", e);
    }
  }

  // ---- history and gray releases -------------------------------------------------------------

  @Override
  public List<ConfigRevision> history(String key) {
    return releases.history(key);
  }

  @Override
  public ConfigEntry rollback(String key, int toVersion) {
    return releases.rollback(key, toVersion);
  }

  @Override
  public void grayRelease(String key, String candidate, GrayRule rule) {
    releases.grayRelease(key, candidate, rule);
  }

  @Override
  public Optional<GrayRelease> gray(String key) {
    return releases.gray(key);
  }

  @Override
  public List<ConfigInstance> grayInstances() {
    checkNotClosed();
    return releases.grayInstances();
  }

  @Override
  public List<ConfigInstance> grayReach(String key) {
    checkNotClosed();
    return releases.grayReach(key);
  }

  @Override
  public ConfigEntry promote(String key) {
    return releases.promote(key);
  }

  @Override
  public boolean abort(String key) {
    return releases.abort(key);
  }

  @Override
  public boolean delete(String key) {
    return writes.delete(key);
  }

  @Override
  public boolean deleteIfVersion(String key, int expectedVersion) {
    return writes.deleteIfVersion(key, expectedVersion);
  }

  // ---- the local copy's changes (called under the sync's lock, in order) -------------------

  @Override
  public void changed(List<NodeTree.Change<ConfigTree.Node>> nodeChanges) {
    List<ConfigTree.Change> changes = ConfigTree.changesOf(nodeChanges);
    if (changes.isEmpty()) {
      return;
    }
    if (grayView != null) {
      grayView.releasedChanged(changes);
    } else {
      listeners.deliver(changes);
    }
    if (snapshots != null && sync.isSynced()) {
      snapshots.queue();
    }
  }

  @Override
  public void synced() {
    source = ConfigSource.ENSEMBLE;
    if (snapshots != null) {
      snapshots.queue();
    }
  }

  // ---- listeners and state ------------------------------------------------------------------

  @Override
  public void addListener(ConfigListener listener) {
    addListener(listener, session.eventExecutor());
  }

  @Override
  public void addListener(ConfigListener listener, Executor executor) {
    subscribe(listener, executor, key -> true);
  }

  @Override
  public void addKeyListener(String key, ConfigListener listener, Executor executor) {
    Objects.requireNonNull(key, "key must not be null");
    ConfigValues.validateKey(prefix, key);
    subscribe(listener, executor, key::equals);
  }

  @Override
  public void addPrefixListener(String keyPrefix, ConfigListener listener, Executor executor) {
    Objects.requireNonNull(keyPrefix, "keyPrefix must not be null");
    ConfigValues.validateKey(prefix, keyPrefix);
    subscribe(listener, executor, key -> ConfigValues.isAtOrBelow(key, keyPrefix));
  }

  private void subscribe(ConfigListener listener, Executor executor, java.util.function.Predicate<String> keys) {
    Objects.requireNonNull(listener, "listener must not be null");
    Objects.requireNonNull(executor, "executor must not be null");
    checkNotClosed();
    listeners.add(new Subscriber(listener, keys), executor);
  }

  @Override
  public void removeListener(ConfigListener listener) {
    listeners.removeIf(s -> s.listener() == listener);
  }

  @Override
  public boolean isSynced() {
    return !closed && sync.isSynced();
  }

  @Override
  public ConfigSource source() {
    return source;
  }

  @Override
  public boolean awaitSynced(Duration timeout) {
    Durations.checkedTimeout(timeout);
    checkNotClosed();
    long nanos = Durations.timeoutNanos(timeout);
    long deadline = System.nanoTime() + (nanos < 0 ? Long.MAX_VALUE / 2 : nanos);
    try {
      boolean loaded = sync.awaitSynced(deadline, false);
      throwIfFailed();
      return loaded;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BatonInterruptedException("Interrupted while waiting for the config under " + prefix, e);
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    if (snapshots != null) {
      snapshots.close();
    }
    closed = true;
    listeners.clear();
    sync.close();
    if (gray != null) {
      gray.close();
    }
    if (announced) {
      instances.close();
    }
  }

  @Override
  public Optional<RuntimeException> failure() {
    return sync.failure.failure();
  }

  @Override
  public void addFailureListener(FailureListener listener) {
    sync.failure.add(listener, session.eventExecutor());
  }

  private void throwIfFailed() {
    sync.failure.failure().ifPresent(error -> {
      throw new IllegalStateException("The config center on " + prefix + " has stopped following the"
          + " ensemble: " + error.getMessage(), error);
    });
  }

  private void checkNotClosed() {
    if (closed) {
      throw new IllegalStateException("The config center on " + prefix + " is closed; make a new one with"
          + " ConfigCenter.open(baton, prefix)");
    }
  }

  @Override
  public String toString() {
    return "ConfigCenter[" + prefix + ", " + source + (isSynced() ? ", synced" : "") + "]";
  }
}
