package dev.baton.internal.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.BatonInterruptedException;
import dev.baton.ConnectionException;
import dev.baton.config.GrayRelease;
import dev.baton.config.GrayRule;
import dev.baton.internal.cache.NodeTree;
import dev.baton.internal.cache.TreeSync;
import dev.baton.internal.session.Errors;
import dev.baton.internal.session.Session;
import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gray releases of a config center's keys: one node per key in gray, {@code
 * <prefix>.gray/<key, flattened>}, holding the candidate and its rule as JSON, outside the prefix
 * so that plain readers of the keys and older clients never see it. A {@link TreeSync} keeps a
 * copy, as the keys' own; writes are sent on the session's current handle, and their replies
 * become facts of that copy on the event thread, in order with its events (read-your-writes).
 */
final class ConfigGray {
  private static final Logger log = LoggerFactory.getLogger(ConfigGray.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * A node of the gray tree: the release, or null if the node is not one (then ignored); and the
   * creation (czxid) of the key's node it was released beside, or 0 if not known. A candidate
   * belongs to that life of the key only: once the key is deleted (and maybe created again) it
   * is seen by no one and cannot be promoted.
   */
  record Entry(GrayRelease release, long keyCzxid) {
    /** Whether this candidate was released beside {@code released}, the key's node as a copy holds it. */
    boolean belongsTo(ConfigTree.Node released) {
      return release != null && released != null && released.isKey()
          && (keyCzxid == 0 || released.czxid() == 0 || keyCzxid == released.czxid());
    }
  }

  /** A gray node as the ensemble holds it, and its version. */
  record Current(Entry entry, int version) {}

  private final Session session;
  private final String prefix;
  private final String serverRoot;
  private final NodeTree<Entry> tree = new NodeTree<>(java.util.Objects::equals);
  private final TreeSync<Entry> sync;

  ConfigGray(Session session, String prefix, String serverPrefix, TreeSync.Sink<Entry> sink) {
    this.session = session;
    this.prefix = prefix;
    this.serverRoot = serverPrefix + ".gray";
    this.sync = new TreeSync<>(session, serverRoot, TreeSync.Scope.DESCENDANTS, tree, this::decode, sink);
  }

  void start() {
    sync.start();
  }

  /** As {@link TreeSync#awaitSynced}. */
  boolean awaitSynced(long deadlineNanos, boolean whileConnected) throws InterruptedException {
    return sync.awaitSynced(deadlineNanos, whileConnected);
  }

  void close() {
    sync.close();
  }

  /** The gray node of {@code key} as the copy knows it; null if none. */
  Entry entry(String key) {
    return tree.node(ConfigValues.flatName(key));
  }

  /**
   * The release of {@code key} in progress beside {@code released} (the key's node), as the copy
   * knows it; null if none.
   */
  GrayRelease release(String key, ConfigTree.Node released) {
    Entry entry = entry(key);
    return entry != null && entry.belongsTo(released) ? entry.release() : null;
  }

  /**
   * The gray node of {@code key} read from the ensemble (its fact applied to the copy), or null if
   * there is none. Retried on connection loss as {@link #write}.
   */
  Current read(String key) {
    String name = ConfigValues.flatName(key);
    String path = serverRoot + "/" + name;
    Current[] read = new Current[1];
    Code code = call(path, handle -> {
      CompletableFuture<Code> done = new CompletableFuture<>();
      handle.zk().getData(path, false, (rc, p, ctx, data, stat) -> {
        Code result = Code.get(rc);
        if (result == Code.OK) {
          sync.nodeSeen(handle, name, data, stat);
          read[0] = new Current(decode(name, data, stat), stat.getVersion());
        } else if (result == Code.NONODE) {
          sync.nodeAbsent(handle, name);
        }
        done.complete(result);
      }, null);
      return done;
    });
    if (code == Code.NONODE) {
      return null;
    }
    check(code, path);
    return read[0];
  }

  /**
   * The removal of the key's gray node at {@code version}, as the guard of a promote's
   * transaction: it fails if the release was aborted, promoted or replaced since it was read.
   */
  ConfigRequests.Guard removal(String key, int version) {
    String name = ConfigValues.flatName(key);
    return new ConfigRequests.Guard(org.apache.zookeeper.Op.delete(serverRoot + "/" + name, version),
        handle -> sync.nodeAbsent(handle, name));
  }

  /** The key a change of the gray tree is about. */
  static String keyOf(NodeTree.Change<Entry> change) {
    return ConfigValues.keyOfFlatName(change.key());
  }

  private Entry decode(String name, byte[] data, Stat stat) {
    String key = ConfigValues.keyOfFlatName(name);
    try {
      JsonNode json = JSON.readTree(data == null ? new byte[0] : data);
      Map<String, String> labels = new HashMap<>();
      json.path("labels").fields().forEachRemaining(e -> labels.put(e.getKey(), e.getValue().asText()));
      Set<String> ids = new HashSet<>();
      json.path("ids").forEach(id -> ids.add(id.asText()));
      GrayRule rule = new GrayRule(labels, ids, json.path("percent").asInt(0));
      return new Entry(new GrayRelease(key, json.path("candidate").asText(), rule), json.path("keyCzxid").asLong(0));
    } catch (IOException | RuntimeException e) {
      log.warn("Ignoring {}/{}: not a gray release of Baton ({})", serverRoot, name, e.getMessage());
      return new Entry(null, 0);
    }
  }

  private static byte[] encode(GrayRelease release, long keyCzxid) {
    ObjectNode json = JSON.createObjectNode();
    json.put("candidate", release.candidate());
    json.put("keyCzxid", keyCzxid);
    ObjectNode labels = json.putObject("labels");
    release.rule().labels().forEach(labels::put);
    release.rule().ids().forEach(json.putArray("ids")::add);
    json.put("percent", release.rule().percent());
    try {
      return JSON.writeValueAsBytes(json);
    } catch (IOException e) {
      throw new IllegalStateException("Cannot encode the gray release of '" + release.key() + "'", e);
    }
  }

  /**
   * Writes {@code release}, beside the key's node created at {@code keyCzxid} (0 if not known):
   * its node set, or created (with the gray root) if missing.
   */
  void write(GrayRelease release, long keyCzxid) {
    String name = ConfigValues.flatName(release.key());
    String path = serverRoot + "/" + name;
    byte[] data = encode(release, keyCzxid);
    while (true) {
      Code code = call(path, handle -> {
        CompletableFuture<Code> done = new CompletableFuture<>();
        handle.zk().setData(path, data, -1, (rc, p, ctx, stat) -> {
          if (Code.get(rc) == Code.OK) {
            sync.nodeSeen(handle, name, data, stat);
          }
          done.complete(Code.get(rc));
        }, null);
        return done;
      });
      if (code != Code.NONODE) {
        check(code, path);
        return;
      }
      call(path, handle -> {
        CompletableFuture<Code> done = new CompletableFuture<>();
        handle.zk().create(serverRoot, null, session.settings().aclFor(serverRoot), CreateMode.PERSISTENT,
            (rc, p, ctx, n) -> { }, null);
        handle.zk().create(path, data, session.settings().aclFor(path), CreateMode.PERSISTENT,
            (rc, p, ctx, n, stat) -> {
              if (Code.get(rc) == Code.OK) {
                sync.nodeSeen(handle, name, data, stat);
              }
              done.complete(Code.get(rc));
            }, null);
        return done;
      });
      // Created, or created meanwhile by another writer (then set on the next turn).
    }
  }

  /** Removes the release of {@code key}; false if there was none. */
  boolean remove(String key) {
    String name = ConfigValues.flatName(key);
    String path = serverRoot + "/" + name;
    Code code = call(path, handle -> {
      CompletableFuture<Code> done = new CompletableFuture<>();
      handle.zk().delete(path, -1, (rc, p, ctx) -> {
        Code result = Code.get(rc);
        if (result == Code.OK || result == Code.NONODE) {
          sync.nodeAbsent(handle, name);
        }
        done.complete(result);
      }, null);
      return done;
    });
    if (code == Code.NONODE) {
      return false;
    }
    check(code, path);
    return true;
  }

  private interface Request {
    CompletableFuture<Code> send(Session.Handle handle);
  }

  /**
   * Sends {@code request} once connected, again after a connection loss as the retry policy
   * allows: each of these requests is safe to repeat (a set of the same data, a create that
   * finds the node, a delete that finds none).
   */
  private Code call(String path, Request request) {
    var policy = session.settings().retryPolicy();
    for (int attempt = 1; ; attempt++) {
      session.checkOpen();
      Code code;
      if (!session.state().isConnected()) {
        code = Code.CONNECTIONLOSS;
      } else {
        try {
          code = request.send(session.handle()).get(session.settings().connectionTimeout().toMillis()
              + session.negotiatedSessionTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new BatonInterruptedException("Interrupted while writing the gray release at " + path, e);
        } catch (ExecutionException | java.util.concurrent.TimeoutException | RuntimeException e) {
          code = Code.CONNECTIONLOSS;
        }
      }
      if (!Errors.isConnectionProblem(code)) {
        return code;
      }
      if (attempt > policy.maxRetries()) {
        throw new ConnectionException("Connection to ZooKeeper lost while writing the gray release at "
            + session.settings().onClient(path) + " (prefix " + prefix + "); the retry policy gave up");
      }
      try {
        TimeUnit.NANOSECONDS.sleep(Math.max(policy.delayBefore(attempt).toNanos(), 1_000_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new BatonInterruptedException("Interrupted while writing the gray release at " + path, e);
      }
    }
  }

  private void check(Code code, String path) {
    if (code != Code.OK) {
      throw Errors.translate(KeeperException.create(code, path), session.settings().onClient(path));
    }
  }
}
