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
import dev.baton.ConnectionException;
import dev.baton.NotAuthorizedException;
import dev.baton.OutcomeUnknownException;
import dev.baton.RetryPolicy;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The config center: reads from the {@link ConfigTree} that {@link ConfigSync} keeps, writes as
 * single requests whose replies update that copy on their way (read-your-writes), the snapshot
 * file, the listeners. See {@link ConfigCenter} for the contract.
 *
 * <p>Why every write knows the version it writes on, even {@link #update}, which replaces any
 * value: ZooKeeper cannot tell a client a container from a persistent node, so the only way to
 * be sure a write lands on a key and not on a folder (or on a node deleted and created again
 * meanwhile) is to write on the version of a node seen to hold a value. The local copy supplies
 * that version, so it costs nothing unless the copy is behind (then one read).
 */
public final class ZkConfigCenter implements ConfigCenter, ConfigSync.Sink {
  private static final Logger log = LoggerFactory.getLogger(ZkConfigCenter.class);
  // How often a write may find its folders missing in a row (removed as empty containers
  // meanwhile) before it gives up; each round is a create that certainly did nothing.
  private static final int MAX_STRUCTURE_ROUNDS = 10;

  private final Session session;
  private final String prefix;
  private final String serverPrefix;
  private final Path snapshotFile;
  private final int maxPacket;
  private final ConfigTree tree = new ConfigTree();
  private final ConfigListeners listeners = new ConfigListeners();
  private final ConfigSync sync;
  private final AtomicBoolean snapshotWriteQueued = new AtomicBoolean();
  private final Object snapshotFileLock = new Object();
  private long snapshotsTaken; // guarded by the sync's lock
  private long snapshotWritten; // guarded by snapshotFileLock
  private volatile ConfigSource source = ConfigSource.NONE;
  private volatile boolean closed;

  private ZkConfigCenter(Session session, String prefix, ConfigOptions options) {
    this.session = session;
    this.prefix = prefix;
    this.serverPrefix = session.settings().onServer(prefix);
    this.snapshotFile = options.snapshotFile();
    // The limit of this client's ZooKeeper handle: its own jute.maxbuffer, else the JVM's.
    this.maxPacket = NodeSizes.maxPacket(session.settings());
    this.sync = new ConfigSync(session, serverPrefix, tree, this);
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
    Write write = new Write(key, value, "create");
    for (int round = 1; ; round++) {
      Reply reply = write.send(h -> create(h, key, write.data, write.acl));
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
    Write write = new Write(key, value, "update");
    ConfigTree.Node known = tree.node(key);
    while (true) {
      if (known == null) {
        known = write.read().orElseThrow(() -> missing(key));
      }
      if (!known.isKey()) {
        throw missing(key);
      }
      int version = known.version();
      Reply reply = write.send(h -> setData(h, key, write.data, version));
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
    Write write = new Write(key, value, "set");
    ConfigTree.Node known = tree.node(key);
    for (int round = 1; ; round++) {
      if (known != null && !known.isKey()) {
        throw exists(key);
      }
      ConfigTree.Node on = known;
      Reply reply = write.send(h -> on == null ? create(h, key, write.data, write.acl)
          : setData(h, key, write.data, on.version()));
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
    Write write = new Write(key, value, "compare-and-set");
    long czxid = czxidAt(key, expectedVersion);
    while (true) {
      Reply reply = write.send(h -> setData(h, key, write.data, expectedVersion));
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
    Write write = new Write(key, null, "delete");
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
      Reply reply = write.send(h -> delete(h, key, version));
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
    Write write = new Write(key, null, "delete");
    long czxid = czxidAt(key, expectedVersion);
    while (true) {
      Reply reply = write.send(h -> delete(h, key, expectedVersion));
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
    return Paths.join(prefix, key);
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

  // ---- requests -------------------------------------------------------------------------------

  /** The answer to one request: ZooKeeper's code, and the node's stat where the request gives one. */
  private record Reply(Code code, Stat stat, ConfigTree.Node node) {}

  /** One request on a handle. */
  @FunctionalInterface
  private interface Request {
    CompletableFuture<Reply> send(Session.Handle handle);
  }

  // Each reply's fact is applied to the local copy in its callback, on the handle's event
  // thread, before the caller sees the reply: in order with the watch's events, and in the copy
  // by the time the write returns.

  private CompletableFuture<Reply> create(Session.Handle handle, String key, byte[] data, List<ACL> acl) {
    CompletableFuture<Reply> reply = new CompletableFuture<>();
    sync.ownWriteStarted(key);
    try {
      handle.zk().create(sync.pathOf(key), data, acl, CreateMode.PERSISTENT, (rc, path, ctx, name, stat) -> {
        Code code = Code.get(rc);
        if (code == Code.OK) {
          sync.nodeSeen(handle, key, data, stat);
        }
        sync.ownWriteEnded(handle, key, code == Code.OK ? stat : null);
        reply.complete(new Reply(code, stat, null));
      }, null);
    } catch (RuntimeException e) {
      sync.ownWriteEnded(handle, key, null);
      throw e;
    }
    return reply;
  }

  private CompletableFuture<Reply> setData(Session.Handle handle, String key, byte[] data, int version) {
    CompletableFuture<Reply> reply = new CompletableFuture<>();
    sync.ownWriteStarted(key);
    try {
      handle.zk().setData(sync.pathOf(key), data, version, (rc, path, ctx, stat) -> {
        Code code = Code.get(rc);
        if (code == Code.OK) {
          sync.nodeSeen(handle, key, data, stat);
        } else if (code == Code.NONODE) {
          sync.nodeAbsent(handle, key);
        }
        sync.ownWriteEnded(handle, key, code == Code.OK ? stat : null);
        reply.complete(new Reply(code, stat, null));
      }, null);
    } catch (RuntimeException e) {
      sync.ownWriteEnded(handle, key, null);
      throw e;
    }
    return reply;
  }

  private CompletableFuture<Reply> delete(Session.Handle handle, String key, int version) {
    CompletableFuture<Reply> reply = new CompletableFuture<>();
    handle.zk().delete(sync.pathOf(key), version, (rc, path, ctx) -> {
      Code code = Code.get(rc);
      if (code == Code.OK || code == Code.NONODE) {
        sync.nodeAbsent(handle, key);
      }
      reply.complete(new Reply(code, null, null));
    }, null);
    return reply;
  }

  private CompletableFuture<Reply> getData(Session.Handle handle, String key) {
    CompletableFuture<Reply> reply = new CompletableFuture<>();
    handle.zk().getData(sync.pathOf(key), false, (rc, path, ctx, data, stat) -> {
      Code code = Code.get(rc);
      ConfigTree.Node node = null;
      if (code == Code.OK) {
        sync.nodeSeen(handle, key, data, stat);
        node = ConfigTree.Node.of(data, stat);
      } else if (code == Code.NONODE) {
        sync.nodeAbsent(handle, key);
      }
      reply.complete(new Reply(code, stat, node));
    }, null);
    return reply;
  }

  /** Creates the missing folders of {@code key}: container nodes without data. */
  private CompletableFuture<Reply> createFolders(Session.Handle handle, String key) {
    String serverPath = sync.pathOf(key);
    List<String> ancestors = new ArrayList<>();
    for (int slash = serverPath.indexOf('/', 1); slash > 0; slash = serverPath.indexOf('/', slash + 1)) {
      ancestors.add(serverPath.substring(0, slash));
    }
    CompletableFuture<Reply> done = new CompletableFuture<>();
    Code[] firstError = new Code[1];
    // Pipelined: the session answers in order, so the last reply means all are done.
    for (int i = 0; i < ancestors.size(); i++) {
      boolean last = i == ancestors.size() - 1;
      String folder = ancestors.get(i);
      handle.zk().create(folder, null, session.settings().aclFor(folder), CreateMode.CONTAINER,
          (rc, path, ctx, name) -> {
            Code code = Code.get(rc);
            if (code != Code.OK && code != Code.NODEEXISTS && firstError[0] == null) {
              firstError[0] = code;
            }
            if (last) {
              done.complete(new Reply(firstError[0] == null ? Code.OK : firstError[0], null, null));
            }
          }, null);
    }
    if (ancestors.isEmpty()) {
      done.complete(new Reply(Code.OK, null, null));
    }
    return done;
  }

  /**
   * One write call: waits for the connection before each request, counts lost replies against
   * the retry policy, and knows whether a request of it may have been applied.
   */
  private final class Write {
    final String key;
    final String path;
    final String what;
    final byte[] data;
    final List<ACL> acl;
    final RetryPolicy policy = session.settings().retryPolicy();
    /** A request of this call was sent and its reply lost: it may have been applied. */
    boolean replyLost;
    int failures;

    /** A write of {@code value}, or a delete if {@code what} is "delete". */
    Write(String key, String value, String what) {
      checkNotClosed();
      session.checkOpen();
      ConfigValues.validateKey(prefix, key);
      if (!what.equals("delete")) {
        Objects.requireNonNull(value, "value must not be null");
      }
      this.key = key;
      this.path = clientPath(key);
      this.what = what;
      String serverPath = sync.pathOf(key);
      if (value == null) {
        this.data = null;
        this.acl = null;
      } else {
        this.data = ConfigValues.encode(value);
        this.acl = session.settings().aclFor(serverPath);
        ConfigValues.checkSize(key, path, data, NodeSizes.maxCreateData(serverPath, acl, maxPacket), maxPacket);
      }
    }

    /** Sends a request once connected, and waits for its reply. */
    Reply send(Request request) {
      awaitConnection();
      try {
        return await(request.send(session.handle()));
      } catch (RuntimeException e) {
        throw Errors.translate(e, path);
      }
    }

    /** Reads the node, retrying while the connection is down; empty if it is absent. */
    Optional<ConfigTree.Node> read() {
      while (true) {
        Reply reply = send(handle -> getData(handle, key));
        switch (reply.code()) {
          case OK -> {
            return Optional.of(reply.node());
          }
          case NONODE -> {
            return Optional.empty();
          }
          default -> {
            if (!isConnectionProblem(reply.code())) {
              throw refused(reply.code());
            }
            pauseAfterFailure(reply.code());
          }
        }
      }
    }

    /** {@link #read} after a lost reply: if the retry policy gives up, the outcome is unknown. */
    Optional<ConfigTree.Node> readAfterLoss() {
      try {
        return read();
      } catch (ConnectionException e) {
        if (e instanceof OutcomeUnknownException unknown) {
          throw unknown;
        }
        throw outcomeUnknown("the connection did not come back in time to read the key again", e);
      }
    }

    /**
     * Returns if {@code code} is a lost connection (the request may have been applied), after the
     * retry policy's pause; throws the translated error otherwise, or when the policy gives up.
     */
    void failUnlessLost(Code code) {
      if (!isConnectionProblem(code)) {
        throw refused(code);
      }
      replyLost = true;
      pauseAfterFailure(code);
    }

    void createFolders(int round) {
      if (round >= MAX_STRUCTURE_ROUNDS) {
        throw new BatonException("Cannot " + what + " config key '" + key + "': its folders under " + prefix
            + " keep disappearing (removed as empty containers while this write made them)");
      }
      while (true) {
        Reply reply = send(handle -> ZkConfigCenter.this.createFolders(handle, key));
        if (reply.code() == Code.OK) {
          return;
        }
        if (!isConnectionProblem(reply.code())) {
          throw refused(reply.code());
        }
        pauseAfterFailure(reply.code()); // creating folders is safe to repeat
      }
    }

    private void pauseAfterFailure(Code code) {
      failures++;
      if (failures > policy.maxRetries()) {
        KeeperException cause = KeeperException.create(code, path);
        if (replyLost) {
          throw outcomeUnknown("the retry policy gave up", cause);
        }
        throw new ConnectionException("Connection to ZooKeeper lost during a " + what + " of config key '"
            + key + "' at " + path + "; the retry policy gave up, and nothing was written", cause);
      }
      pause(policy.delayBefore(failures).toNanos());
    }

    private void awaitConnection() {
      for (int attempt = 1; !session.state().isConnected(); attempt++) {
        checkNotClosed();
        session.checkOpen();
        if (attempt > policy.maxRetries()) {
          String message = "Not connected to ZooKeeper at " + session.settings().connectString()
              + "; the retry policy gave up waiting to " + what + " config key '" + key + "' at " + path;
          if (replyLost) {
            throw outcomeUnknown("the connection did not come back in time", null);
          }
          throw new ConnectionException(message + ". Nothing was written");
        }
        pause(policy.delayBefore(attempt).toNanos());
      }
      checkNotClosed();
      session.checkOpen();
    }

    private void pause(long nanos) {
      try {
        TimeUnit.NANOSECONDS.sleep(Math.max(nanos, TimeUnit.MILLISECONDS.toNanos(1)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw interrupted(e);
      }
    }

    private Reply await(CompletableFuture<Reply> reply) {
      try {
        while (true) {
          try {
            return reply.get(1, TimeUnit.SECONDS);
          } catch (TimeoutException e) {
            // ZooKeeper answers every request, with connection loss at worst; only a closing
            // client could leave one unanswered.
            session.checkOpen();
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw interrupted(e);
      } catch (ExecutionException e) {
        throw Errors.translate(e.getCause(), path);
      }
    }

    private RuntimeException refused(Code code) {
      if (code == Code.NOAUTH) {
        return new NotAuthorizedException(path, KeeperException.create(code, path));
      }
      return Errors.translate(KeeperException.create(code, path), path);
    }

    OutcomeUnknownException outcomeUnknown(String why) {
      return outcomeUnknown(why, null);
    }

    OutcomeUnknownException outcomeUnknown(String why, Throwable cause) {
      return new OutcomeUnknownException(path, "Connection to ZooKeeper lost during a " + what
          + " of config key '" + key + "' at " + path + ", and " + why + ": it may or may not have been"
          + " applied, and was not sent again. Read the key to decide.", cause);
    }

    private BatonInterruptedException interrupted(InterruptedException e) {
      return new BatonInterruptedException("Interrupted during a " + what + " of config key '" + key + "' at "
          + path + "; a request on its way may or may not have been applied", e);
    }
  }

  private static boolean isConnectionProblem(Code code) {
    return code == Code.CONNECTIONLOSS || code == Code.OPERATIONTIMEOUT || code == Code.SESSIONEXPIRED
        || code == Code.SESSIONMOVED;
  }

  // ---- the local copy's changes (called under the sync's lock, in order) -------------------

  @Override
  public void changed(List<ConfigTree.Change> changes) {
    listeners.deliver(changes);
    if (sync.isSynced()) {
      queueSnapshotWrite();
    }
  }

  @Override
  public void synced() {
    source = ConfigSource.ENSEMBLE;
    queueSnapshotWrite();
  }

  /** Writes the snapshot file soon, on the event executor; changes meanwhile join the same write. */
  private void queueSnapshotWrite() {
    if (snapshotFile == null || closed || !snapshotWriteQueued.compareAndSet(false, true)) {
      return;
    }
    try {
      session.eventExecutor().execute(this::writeSnapshot);
    } catch (RejectedExecutionException e) {
      snapshotWriteQueued.set(false);
    }
  }

  /**
   * Writes the copy as it is now. The copy is taken under the sync's lock and written under the
   * file's, never holding both (an executor that runs tasks at once runs this under the sync's
   * lock); a copy older than the one last written is dropped.
   */
  private void writeSnapshot() {
    snapshotWriteQueued.set(false); // a change from now on queues another write
    Map<String, ConfigTree.Node> keys;
    long taken;
    synchronized (sync) {
      if (!sync.isSynced()) {
        return; // loading again: the end of the load writes
      }
      keys = tree.keys();
      taken = ++snapshotsTaken;
    }
    synchronized (snapshotFileLock) {
      if (taken < snapshotWritten) {
        return;
      }
      try {
        ConfigSnapshotFile.write(snapshotFile, serverPrefix, keys);
        snapshotWritten = taken;
      } catch (IOException | RuntimeException e) {
        log.warn("Cannot write the config snapshot file {}: {}; the file keeps older values", snapshotFile,
            e.toString());
      }
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
    if (snapshotFile != null && sync.isSynced()) {
      writeSnapshot(); // the latest state, even if a queued write has not run yet
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
