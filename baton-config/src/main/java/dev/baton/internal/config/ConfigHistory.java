package dev.baton.internal.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.config.ConfigRevision;
import dev.baton.internal.session.Retrying;
import dev.baton.internal.session.Session;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.CreateOptions;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The history of a config center's keys: one persistent sequential node per write, {@code
 * <prefix>.history/<key, escaped>/r-<sequence>}, created in the same transaction as the write
 * (see {@link ConfigRequests}), holding the revision as JSON; the time is the node's creation
 * time on the ensemble.
 *
 * <p>Why the order is right without a lock: every write of the config center is made on the
 * version it saw (the key's node version is checked by the same transaction), so two writes of a
 * key that both commit are ordered by the ensemble, and the sequence numbers of their revisions
 * follow that order. Why trimming after the write is enough: trimming only removes the oldest
 * revisions beyond the bound, and readers take the newest {@code keep} only, so a trim that is
 * late (or lost with the connection) never shows more, and never removes a revision it should keep.
 *
 * <p>Keys are flattened into one name ({@code db/url} is {@code db%2Furl}) so that a key's
 * revisions and a nested key's never share a folder.
 */
final class ConfigHistory {
  private static final Logger log = LoggerFactory.getLogger(ConfigHistory.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ENTRY = "r-";
  private static final String HOST = hostName();
  private static final long PID = ProcessHandle.current().pid();

  private final Session session;
  private final String prefix;
  private final String serverRoot;
  private final int keep;
  /**
   * Keys whose history folder is known to exist: their writes skip creating it. The creates are
   * cheap to send but not to serve (each failed create is a transaction the ensemble logs), and
   * tripled the cost of a write. A folder removed by hand makes the next write's transaction fail
   * on it; {@link #forget} then makes the retry create it again.
   */
  private final java.util.Set<String> prepared = java.util.concurrent.ConcurrentHashMap.newKeySet();

  ConfigHistory(Session session, String prefix, String serverPrefix, int keep) {
    this.session = session;
    this.prefix = prefix;
    this.serverRoot = serverPrefix + ".history";
    this.keep = keep;
  }

  /** Where the history of {@code prefix} lies, as a client path. */
  static String clientRoot(String prefix) {
    return prefix + ".history";
  }

  private String folderOf(String key) {
    return serverRoot + "/" + ConfigValues.flatName(key);
  }

  /**
   * Creates the key's history folder and its missing ancestors, persistent, pipelined: sent just
   * before the write's transaction, the session applies them first. Failures are left to the
   * transaction, which then fails naming its cause.
   */
  void prepare(Session.Handle handle, String key) {
    if (prepared.contains(key)) {
      return;
    }
    String folder = folderOf(key);
    for (int slash = folder.indexOf('/', 1); slash > 0; slash = folder.indexOf('/', slash + 1)) {
      createQuietly(handle, folder.substring(0, slash));
    }
    createQuietly(handle, folder);
  }

  /** The key's folder is there: a write's transaction with its revision succeeded. */
  void prepared(String key) {
    prepared.add(key);
  }

  /** The key's folder may be gone: the next write creates it again. */
  void forget(String key) {
    prepared.remove(key);
  }

  private void createQuietly(Session.Handle handle, String path) {
    handle.zk().create(path, null, session.settings().aclFor(path), CreateMode.PERSISTENT,
        (rc, p, ctx, name) -> { }, null);
  }

  /** The revision's node, to run in the write's transaction (on the server's paths). */
  Op revision(String key, String operation, int version, String value, int previousVersion, String previousValue) {
    String path = folderOf(key) + "/" + ENTRY;
    return Op.create(path, json(key, operation, version, value, previousVersion, previousValue),
        CreateOptions.newBuilder(session.settings().aclFor(path), CreateMode.PERSISTENT_SEQUENTIAL).build());
  }

  /** As {@link #revision}, on the client's paths, for {@code Transactions.run}. */
  Op revisionOnClient(String key, String operation, int version, String value, int previousVersion,
      String previousValue) {
    String path = clientRoot(prefix) + "/" + ConfigValues.flatName(key) + "/" + ENTRY;
    return Op.create(path, json(key, operation, version, value, previousVersion, previousValue),
        session.settings().aclFor(folderOf(key) + "/" + ENTRY), CreateMode.PERSISTENT_SEQUENTIAL);
  }

  private byte[] json(String key, String operation, int version, String value, int previousVersion,
      String previousValue) {
    ObjectNode json = JSON.createObjectNode();
    json.put("version", version);
    if (value != null) {
      json.put("value", value);
    }
    json.put("previousVersion", previousVersion);
    if (previousValue != null) {
      json.put("previousValue", previousValue);
    }
    json.put("operation", operation);
    json.put("host", HOST);
    json.put("pid", PID);
    String user = session.settings().authUser();
    if (user != null) {
      json.put("authId", "digest:" + user);
    }
    try {
      return JSON.writeValueAsBytes(json);
    } catch (IOException e) {
      throw new IllegalStateException("Cannot encode the history of config key '" + key + "'", e);
    }
  }

  /** Removes the key's revisions beyond the newest {@code keep}; asynchronous, best effort. */
  void trim(Session.Handle handle, String key) {
    String folder = folderOf(key);
    try {
      handle.zk().getChildren(folder, false, (rc, path, ctx, children) -> {
        if (children == null || children.size() <= keep) {
          return;
        }
        List<String> sorted = new ArrayList<>(children);
        sorted.sort(Comparator.naturalOrder());
        for (String old : sorted.subList(0, sorted.size() - keep)) {
          handle.zk().delete(folder + "/" + old, -1, (drc, p, c) -> { }, null);
        }
      }, null);
    } catch (RuntimeException e) {
      log.debug("History of {} not trimmed: the handle is closing", key, e);
    }
  }

  /** The newest revisions of {@code key}, newest first; read from the ensemble. */
  List<ConfigRevision> read(String key) {
    String folder = folderOf(key);
    List<String> children = Retrying.call(session, folder, zk -> {
      try {
        return zk.getChildren(folder, false);
      } catch (KeeperException.NoNodeException e) {
        return List.<String>of();
      }
    });
    List<String> sorted = new ArrayList<>(children);
    sorted.sort(Comparator.reverseOrder());
    List<ConfigRevision> revisions = new ArrayList<>();
    for (String name : sorted.subList(0, Math.min(keep, sorted.size()))) {
      Stat stat = new Stat();
      byte[] data = Retrying.call(session, folder + "/" + name, zk -> {
        try {
          return zk.getData(folder + "/" + name, false, stat);
        } catch (KeeperException.NoNodeException e) {
          return null; // trimmed meanwhile
        }
      });
      if (data != null) {
        revisions.add(decode(key, data, stat));
      }
    }
    return revisions;
  }

  private ConfigRevision decode(String key, byte[] data, Stat stat) {
    try {
      JsonNode json = JSON.readTree(data);
      return new ConfigRevision(key, json.path("version").asInt(-1), text(json, "value"),
          json.path("previousVersion").asInt(-1), text(json, "previousValue"), json.path("operation").asText("?"),
          json.path("host").asText(""), json.path("pid").asLong(0), text(json, "authId"),
          Instant.ofEpochMilli(stat.getCtime()));
    } catch (IOException e) {
      throw new IllegalStateException("The history of config key '" + key + "' under " + clientRoot(prefix)
          + " holds a revision that is not Baton's JSON", e);
    }
  }

  private static Optional<String> text(JsonNode json, String field) {
    JsonNode node = json.get(field);
    return node == null || node.isNull() ? Optional.empty() : Optional.of(node.asText());
  }

  private static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return "unknown";
    }
  }
}
