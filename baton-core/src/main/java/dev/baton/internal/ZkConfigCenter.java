package dev.baton.internal;

import dev.baton.BatonException;
import dev.baton.BatonInterruptedException;
import dev.baton.ConfigCenter;
import dev.baton.ConfigEntry;
import dev.baton.ConfigKeyExistsException;
import dev.baton.ConfigKeyMissingException;
import dev.baton.ConfigListener;
import dev.baton.ConfigOptions;
import dev.baton.ConfigSource;
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
 * The config center: reads from the {@link ConfigTree} that {@link ConfigSync} keeps; writes as
 * single requests ({@link ConfigRequests}, each call a {@link ConfigWrite}) whose replies update
 * that copy on their way (read-your-writes); the snapshot file ({@link ConfigSnapshotWriter}); the
 * listeners. See {@link ConfigCenter} for the contract.
 *
 * <p>Why every write knows the version it writes on, even {@link #update}, which replaces any
 * value: ZooKeeper cannot tell a client a container from a persistent node, so the only way to
 * be sure a write lands on a key and not on a folder (or on a node deleted and created again
 * meanwhile) is to write on the version of a node seen to hold a value. The local copy supplies
 * that version, so it costs nothing unless the copy is behind (then one read).
 */
public final class ZkConfigCenter implements ConfigCenter, ConfigSync.Sink {
  private static final Logger log = LoggerFactory.getLogger(ZkConfigCenter.class);
  private final Session session;
  private final String prefix;
  private final String serverPrefix;
  private final Path snapshotFile;
  private final ConfigTree tree = new ConfigTree();
  private final ConfigListeners listeners = new ConfigListeners();
  private final ConfigSync sync;
  private final ConfigRequests requests;
  /** Null without a snapshot file. */
  private final ConfigSnapshotWriter snapshots;
  private volatile ConfigSource source = ConfigSource.NONE;
  private volatile boolean closed;

  private ZkConfigCenter(Session session, String prefix, ConfigOptions options) {
    this.session = session;
    this.prefix = prefix;
    this.serverPrefix = session.settings().onServer(prefix);
    this.snapshotFile = options.snapshotFile();
    this.sync = new ConfigSync(session, serverPrefix, tree, this);
    // The limit of this client's ZooKeeper handle: its own jute.maxbuffer, else the JVM's.
    this.requests = new ConfigRequests(session, sync, prefix, NodeSizes.maxPacket(session.settings()), () -> {
      checkNotClosed();
      session.checkOpen();
    });
    this.snapshots = snapshotFile == null ? null
        : new ConfigSnapshotWriter(snapshotFile, serverPrefix, tree, sync, session.eventExecutor());
  }

  /**
   * Makes a config center on {@code prefix}: reads the snapshot file if there is one, starts
   * following the ensemble, and if the client is connected waits for the first load (at most the
   * client's connection timeout, and only while the connection lasts).
   *
   * @throws dev.baton.ConfigSnapshotException naming the file if it exists but cannot be used
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
    sync.start();
    if (session.state().isConnected()) {
      long deadline = System.nanoTime() + Durations.timeoutNanos(session.settings().connectionTimeout());
      try {
        if (!sync.awaitSynced(deadline, true)) {
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
  public Optional<ConfigEntry> entry(String key) {
    checkNotClosed();
    ConfigValues.validateKey(prefix, key);
    ConfigTree.Node node = tree.node(key);
    return node == null || !node.isKey() ? Optional.empty()
        : Optional.of(new ConfigEntry(key, node.value(), node.version()));
  }

  @Override
  public Map<String, String> snapshot() {
    checkNotClosed();
    return Collections.unmodifiableMap(tree.values());
  }

  private String value(String key) {
    checkNotClosed();
    ConfigValues.validateKey(prefix, key);
    return tree.value(key);
  }

  // ---- writes -------------------------------------------------------------------------------

  @Override
  public ConfigEntry create(String key, String value) {
    ConfigWrite write = new ConfigWrite(requests, key, value, "create");
    for (int round = 1; ; round++) {
      ConfigRequests.Reply reply = write.send(h -> requests.create(h, key, write.data, write.acl));
      switch (reply.code()) {
        case OK -> {
          return new ConfigEntry(key, value, reply.stat().getVersion());
        }
        case NODEEXISTS -> {
          if (write.replyLost) {
            throw write.outcomeUnknown("the key exists now, written by this call or another client");
          }
          throw exists(key);
        }
        case NONODE -> write.createFolders(round);
        default -> {
          write.failUnlessLost(reply.code());
          // Sent again only if certainly not applied: the key is still absent.
          Optional<ConfigTree.Node> now = write.readAfterLoss();
          if (now.isPresent()) {
            throw write.outcomeUnknown("the key exists now (version " + now.get().version()
                + "), created by this call or another client");
          }
        }
      }
    }
  }

  @Override
  public ConfigEntry update(String key, String value) {
    ConfigWrite write = new ConfigWrite(requests, key, value, "update");
    ConfigTree.Node known = tree.node(key);
    while (true) {
      if (known == null) {
        known = write.read().orElseThrow(() -> missing(key));
      }
      if (!known.isKey()) {
        throw missing(key);
      }
      int version = known.version();
      ConfigRequests.Reply reply = write.send(h -> requests.setData(h, key, write.data, version));
      switch (reply.code()) {
        case OK -> {
          return new ConfigEntry(key, value, reply.stat().getVersion());
        }
        case BADVERSION -> known = null;
        case NONODE -> throw missing(key);
        default -> {
          write.failUnlessLost(reply.code());
          known = write.readAfterLoss().orElseThrow(() -> missing(key));
          if (value.equals(known.value())) {
            return new ConfigEntry(key, value, known.version()); // applied, or the same value anyway
          }
        }
      }
    }
  }

  @Override
  public ConfigEntry set(String key, String value) {
    ConfigWrite write = new ConfigWrite(requests, key, value, "set");
    ConfigTree.Node known = tree.node(key);
    for (int round = 1; ; round++) {
      if (known != null && !known.isKey()) {
        throw exists(key);
      }
      ConfigTree.Node on = known;
      ConfigRequests.Reply reply = write.send(h -> on == null ? requests.create(h, key, write.data, write.acl)
          : requests.setData(h, key, write.data, on.version()));
      switch (reply.code()) {
        case OK -> {
          return new ConfigEntry(key, value, reply.stat().getVersion());
        }
        case NODEEXISTS, BADVERSION -> known = write.read().orElse(null);
        case NONODE -> {
          if (on == null) {
            write.createFolders(round);
          } else {
            known = null;
          }
        }
        default -> {
          write.failUnlessLost(reply.code());
          known = write.readAfterLoss().orElse(null);
          if (known != null && value.equals(known.value())) {
            return new ConfigEntry(key, value, known.version());
          }
        }
      }
    }
  }

  @Override
  public boolean compareAndSet(String key, int expectedVersion, String value) {
    checkVersion(expectedVersion);
    ConfigWrite write = new ConfigWrite(requests, key, value, "compare-and-set");
    long czxid = czxidAt(key, expectedVersion);
    while (true) {
      ConfigRequests.Reply reply = write.send(h -> requests.setData(h, key, write.data, expectedVersion));
      switch (reply.code()) {
        case OK -> {
          return true;
        }
        case BADVERSION, NONODE -> {
          return false;
        }
        default -> {
          write.failUnlessLost(reply.code());
          ConfigTree.Node now = write.readAfterLoss().orElseThrow(() -> write.outcomeUnknown(
              "the key is gone now, so this write may have been applied before it was deleted"));
          boolean sameNode = czxid == 0 || now.czxid() == czxid;
          if (sameNode && now.version() == expectedVersion) {
            continue; // certainly not applied: send again
          }
          if (czxid != 0 && sameNode && now.version() == expectedVersion + 1 && !value.equals(now.value())) {
            return false; // the one write since was another client's
          }
          throw write.outcomeUnknown("the node has moved on to version " + now.version()
              + " since version " + expectedVersion + ", maybe with this write among the changes");
        }
      }
    }
  }

  @Override
  public boolean delete(String key) {
    ConfigWrite write = new ConfigWrite(requests, key, null, "delete");
    ConfigTree.Node known = tree.node(key);
    while (true) {
      if (known == null) {
        Optional<ConfigTree.Node> read = write.replyLost ? write.readAfterLoss() : write.read();
        if (read.isEmpty()) {
          return write.replyLost; // gone: by a lost attempt of this call, or never there
        }
        known = read.get();
      }
      if (!known.isKey()) {
        return false; // a folder: no such key
      }
      int version = known.version();
      ConfigRequests.Reply reply = write.send(h -> requests.delete(h, key, version));
      switch (reply.code()) {
        case OK -> {
          return true;
        }
        case BADVERSION -> known = null;
        case NONODE -> {
          return write.replyLost;
        }
        case NOTEMPTY -> throw hasNestedKeys(key);
        default -> {
          write.failUnlessLost(reply.code());
          known = null;
        }
      }
    }
  }

  @Override
  public boolean deleteIfVersion(String key, int expectedVersion) {
    checkVersion(expectedVersion);
    ConfigWrite write = new ConfigWrite(requests, key, null, "delete");
    long czxid = czxidAt(key, expectedVersion);
    while (true) {
      ConfigRequests.Reply reply = write.send(h -> requests.delete(h, key, expectedVersion));
      switch (reply.code()) {
        case OK -> {
          return true;
        }
        case BADVERSION, NONODE -> {
          return false;
        }
        case NOTEMPTY -> throw hasNestedKeys(key);
        default -> {
          write.failUnlessLost(reply.code());
          ConfigTree.Node now = write.readAfterLoss().orElseThrow(() -> write.outcomeUnknown(
              "the key is gone now, deleted by this call or another client"));
          boolean sameNode = czxid == 0 || now.czxid() == czxid;
          if (sameNode && now.version() == expectedVersion) {
            continue; // still there at that version: certainly not applied
          }
          if (czxid != 0 && sameNode) {
            return false; // still there: not applied, and the version has moved on
          }
          throw write.outcomeUnknown("a node is there again (version " + now.version() + "), maybe"
              + " created after this call deleted the one it was for");
        }
      }
    }
  }

  /** The czxid of the node at {@code version} in the local copy; 0 if it is not known. */
  private long czxidAt(String key, int version) {
    ConfigTree.Node node = tree.node(key);
    return node != null && node.version() == version ? node.czxid() : 0;
  }

  private static void checkVersion(int expectedVersion) {
    if (expectedVersion < 0) {
      throw new IllegalArgumentException("expectedVersion must not be negative (ZooKeeper's -1 would mean"
          + " any version), was " + expectedVersion + "; take it from ConfigCenter.entry(key)");
    }
  }

  private String clientPath(String key) {
    return requests.clientPath(key);
  }

  private ConfigKeyExistsException exists(String key) {
    ConfigTree.Node node = tree.node(key);
    String path = clientPath(key);
    if (node != null && !node.isKey()) {
      return new ConfigKeyExistsException(key, path, "config key '" + key + "' cannot be created: " + path
          + " is a folder of nested keys (a node without data), not a key; choose another name");
    }
    return new ConfigKeyExistsException(key, path, "config key '" + key + "' already exists at " + path
        + (node == null ? "" : " (version " + node.version() + ")") + "; use update or set to change it");
  }

  private ConfigKeyMissingException missing(String key) {
    ConfigTree.Node node = tree.node(key);
    String path = clientPath(key);
    return new ConfigKeyMissingException(key, path, "config key '" + key + "' does not exist at " + path
        + (node != null && !node.isKey() ? " (only a folder of nested keys is there)" : "")
        + "; nothing was written. Use create or set to make it");
  }

  private BatonException hasNestedKeys(String key) {
    return new BatonException("config key '" + key + "' at " + clientPath(key) + " has nested keys below it;"
        + " delete those first. Nothing was deleted");
  }

  // ---- the local copy's changes (called under the sync's lock, in order) -------------------

  @Override
  public void changed(List<ConfigTree.Change> changes) {
    listeners.deliver(changes);
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
    Objects.requireNonNull(listener, "listener must not be null");
    Objects.requireNonNull(executor, "executor must not be null");
    checkNotClosed();
    listeners.add(listener, executor);
  }

  @Override
  public void removeListener(ConfigListener listener) {
    listeners.remove(listener);
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
    Objects.requireNonNull(timeout, "timeout must not be null");
    if (timeout.isNegative()) {
      throw new IllegalArgumentException("timeout must not be negative, was " + timeout);
    }
    checkNotClosed();
    long nanos = Durations.timeoutNanos(timeout);
    long deadline = System.nanoTime() + (nanos < 0 ? Long.MAX_VALUE / 2 : nanos);
    try {
      return sync.awaitSynced(deadline, false);
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
  }

  private void checkNotClosed() {
    if (closed) {
      throw new IllegalStateException("The config center on " + prefix + " is closed; make a new one with"
          + " baton.config(prefix)");
    }
  }

  @Override
  public String toString() {
    return "ConfigCenter[" + prefix + ", " + source + (isSynced() ? ", synced" : "") + "]";
  }
}
