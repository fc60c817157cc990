package dev.baton.internal.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.ConnectionState;
import dev.baton.config.ConfigInstance;
import dev.baton.config.GrayRule;
import dev.baton.internal.session.ChildReads;
import dev.baton.internal.session.Errors;
import dev.baton.internal.session.Retrying;
import dev.baton.internal.session.Session;
import dev.baton.internal.session.SessionObserver;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live config center instances of a prefix that take part in gray releases: each announces
 * itself with an ephemeral sequential node {@code <prefix>.instances/i-<uuid>-<n>} holding its id and
 * labels as JSON, beside the gray candidates ({@code <prefix>.gray}) and so outside the prefix,
 * where plain readers of the keys never see it. Sequential, so that two config centers of one id
 * (two in one process, say) never take each other's node.
 *
 * <p>The node lives with the session: after expiry it is made again on the new session, without
 * blocking ZooKeeper's event thread. A make whose reply was lost may have made the node: the
 * next connection looks for it by the instance's marker (the UUID in its name) before making
 * another, and closing deletes it, if this session owns it, at its version. Listing reads the
 * ensemble, not a copy: one listing and one pipelined read per instance.
 */
final class ConfigInstances implements SessionObserver {
  private static final Logger log = LoggerFactory.getLogger(ConfigInstances.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Session session;
  private final String prefix;
  private final String serverRoot;
  private final byte[] announcement;
  /** This instance's node name before its sequence number: its marker, to find a node whose create's reply was lost. */
  private final String namePrefix = "i-" + UUID.randomUUID() + "-";
  /** Counted down once this instance's node is deleted after close (or there was none to delete). */
  private final CountDownLatch cleaned = new CountDownLatch(1);
  // Guarded by this.
  private Session.Handle sentOn;
  private Session.Handle announcedOn;
  /** The handle a create of this instance was sent on whose reply was lost: it may have made the node. */
  private Session.Handle lostOn;
  private String node;
  private int nodeVersion;
  private boolean closed;

  ConfigInstances(Session session, String prefix, String serverPrefix, String instanceId, Map<String, String> labels) {
    this.session = session;
    this.prefix = prefix;
    this.serverRoot = serverPrefix + ".instances";
    this.announcement = encode(instanceId, labels);
  }

  /** The client path instances are announced under. */
  static String clientRoot(String prefix) {
    return prefix + ".instances";
  }

  // ---- announcing this instance -------------------------------------------------------------

  /** Announces this instance now if connected, and on every new session. */
  void announce() {
    session.addObserver(this);
    synchronized (this) {
      if (session.state().isConnected()) {
        send(session.handle());
      }
    }
  }

  /** Waits (at most the connection timeout) for the announcement sent on open to be answered. */
  void awaitAnnounced(long deadlineNanos) throws InterruptedException {
    synchronized (this) {
      while (!closed && sentOn != null && announcedOn != sentOn && session.state().isConnected()) {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
          return;
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
    }
  }

  /**
   * Announces this instance on {@code handle}, unless a request of it is on its way there: after
   * a create of this session whose reply was lost, first looks for the node it may have made (by
   * this instance's marker in its name) instead of making a second one. Call under this lock.
   */
  private void send(Session.Handle handle) {
    if (sentOn == handle) {
      return;
    }
    if (lostOn == handle) {
      sentOn = handle;
      find(handle);
      return;
    }
    if (closed) {
      cleanedUp(); // a new session: the node of the old one went with it
      return;
    }
    sentOn = handle;
    try {
      // The root is persistent: made once by whichever instance comes first.
      handle.zk().create(serverRoot, null, session.settings().aclFor(serverRoot), CreateMode.PERSISTENT,
          (rc, path, ctx, name) -> { }, null);
      String path = serverRoot + "/" + namePrefix;
      handle.zk().create(path, announcement, session.settings().aclFor(path), CreateMode.EPHEMERAL_SEQUENTIAL,
          (rc, p, ctx, name, stat) -> announced(handle, Code.get(rc), name, stat), null);
    } catch (RuntimeException e) {
      sentOn = null; // the handle is closing; the next connection sends it again
    }
  }

  private synchronized void announced(Session.Handle handle, Code code, String name, Stat stat) {
    if (code == Code.OK) {
      announcedOn = handle;
      lostOn = null;
      node = name;
      nodeVersion = stat.getVersion();
      if (closed) {
        sendDelete(handle, name, nodeVersion); // closed while the announcement was on its way
      }
    } else {
      sentOn = null;
      if (Errors.isConnectionProblem(code)) {
        lostOn = handle; // it may have been applied: looked for on the next connection
      } else {
        log.error("The config center on {} could not announce itself under {} ({}): gray rules are checked"
            + " without it", prefix, clientRoot(prefix), code);
        if (closed) {
          cleanedUp();
        }
      }
    }
    notifyAll();
  }

  /**
   * Looks on {@code handle} for a node of this instance that a create whose reply was lost may
   * have made: announced by it if this session owns it, else made now (unless closed).
   */
  private void find(Session.Handle handle) {
    try {
      handle.zk().getChildren(serverRoot, false, (rc, path, ctx, children) -> {
        Code code = Code.get(rc);
        String mine = code != Code.OK ? null
            : children.stream().filter(child -> child.startsWith(namePrefix)).findFirst().orElse(null);
        if (mine == null) {
          notFound(handle, code);
          return;
        }
        String found = serverRoot + "/" + mine;
        handle.zk().exists(found, false, (erc, p, c, stat) -> {
          if (Code.get(erc) == Code.OK && stat.getEphemeralOwner() == handle.zk().getSessionId()) {
            announced(handle, Code.OK, found, stat);
          } else {
            notFound(handle, Code.get(erc));
          }
        }, null);
      }, null);
    } catch (RuntimeException e) {
      synchronized (this) {
        sentOn = null; // the handle is closing: its session's nodes go with it
      }
    }
  }

  private synchronized void notFound(Session.Handle handle, Code code) {
    sentOn = null;
    if (Errors.isConnectionProblem(code)) {
      notifyAll();
      return; // looked for again on the next connection
    }
    lostOn = null; // not made, or not by this session: nothing to delete
    if (closed) {
      cleanedUp();
    } else if (session.state().isConnected() && handle == session.handle()) {
      send(handle);
    }
    notifyAll();
  }

  @Override
  public synchronized void connectionStateChanged(ConnectionState state, Session.Handle handle) {
    if ((state == ConnectionState.CONNECTED || state == ConnectionState.RECONNECTED) && handle == session.handle()
        && announcedOn != handle) {
      send(handle);
    }
    notifyAll();
  }

  @Override
  public synchronized void sessionClosed() {
    closed = true;
    cleaned.countDown(); // the session's nodes go with it
    notifyAll();
  }

  /**
   * Stops announcing and deletes this instance's node (its session would, in the end), at the
   * version it was made with; a node whose create's reply was lost is looked for first, and
   * deleted if this session owns it. Waits at most the connection timeout; if the connection is
   * down, the node is deleted once it is back, on the same session.
   */
  void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      notifyAll();
      Session.Handle current = session.isClosed() ? null : session.handle();
      if (current == null) {
        cleanedUp();
      } else if (node != null && announcedOn == current) {
        sendDelete(current, node, nodeVersion);
      } else if (lostOn == current && session.state().isConnected()) {
        send(current); // looks for the node, and deletes it
      } else if (lostOn != current && sentOn != current) {
        cleanedUp(); // nothing of this session to delete
      }
      // Else a create is on its way (its reply deletes the node) or its reply was lost while
      // disconnected (the next connection looks for the node).
    }
    if (!session.state().isConnected()) {
      return; // cleaned up on the next connection of this session, if it comes
    }
    try {
      // So that a gray release right after this returns no longer counts this instance.
      cleaned.await(session.settings().connectionTimeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** After close: the node is deleted, or there was none; no more to do on new connections. */
  private void cleanedUp() {
    cleaned.countDown();
    session.removeObserver(this);
  }

  private void sendDelete(Session.Handle handle, String path, int version) {
    try {
      handle.zk().delete(path, version, (rc, p, ctx) -> {
        if (Errors.isConnectionProblem(Code.get(rc))) {
          synchronized (this) {
            // It may or may not be deleted: the next connection of this session looks for it again.
            lostOn = handle;
            announcedOn = null;
            sentOn = null;
            node = null;
          }
        } else {
          cleanedUp();
        }
      }, null);
    } catch (RuntimeException e) {
      cleanedUp(); // the handle is closing: the node goes with its session
    }
  }

  // ---- reading who is live ------------------------------------------------------------------

  /** The live instances, one per id, sorted by id. Retried on connection loss as the retry policy says. */
  List<ConfigInstance> live() {
    String clientRoot = clientRoot(prefix);
    return Retrying.call(session, clientRoot, zk -> {
      Map<String, ConfigInstance> byId = new LinkedHashMap<>();
      ChildReads.read(zk, serverRoot).forEach((name, data) -> {
        ConfigInstance instance = decode(name, data);
        if (instance != null) {
          byId.putIfAbsent(instance.id(), instance);
        }
      });
      List<ConfigInstance> live = new ArrayList<>(byId.values());
      live.sort(Comparator.comparing(ConfigInstance::id));
      return List.copyOf(live);
    });
  }

  /** The live instances {@code rule} reaches. */
  List<ConfigInstance> reachedBy(GrayRule rule) {
    return live().stream().filter(instance -> instance.isReachedBy(rule)).toList();
  }

  private static byte[] encode(String id, Map<String, String> labels) {
    ObjectNode json = JSON.createObjectNode();
    json.put("id", id);
    ObjectNode labelsJson = json.putObject("labels");
    labels.forEach(labelsJson::put);
    try {
      return JSON.writeValueAsBytes(json);
    } catch (IOException e) {
      throw new IllegalStateException("Cannot encode the instance " + id, e);
    }
  }

  private ConfigInstance decode(String name, byte[] data) {
    try {
      JsonNode json = JSON.readTree(data == null ? new byte[0] : data);
      Map<String, String> labels = new HashMap<>();
      json.path("labels").fields().forEachRemaining(e -> labels.put(e.getKey(), e.getValue().asText()));
      String id = json.path("id").asText("");
      if (id.isEmpty()) {
        throw new IOException("no id");
      }
      return new ConfigInstance(id, labels);
    } catch (IOException | RuntimeException e) {
      log.warn("Ignoring {}/{}: not a config center instance ({})", clientRoot(prefix), name, e.getMessage());
      return null;
    }
  }
}
