package dev.baton.internal.config;

import dev.baton.ClientClosedException;
import dev.baton.ConnectionState;
import dev.baton.internal.session.Errors;
import dev.baton.internal.session.FailureReport;
import dev.baton.internal.session.Session;
import dev.baton.internal.session.SessionObserver;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a {@link ConfigTree} equal to the nodes under a prefix on the ensemble: one persistent
 * recursive watch on the prefix, a full load after it is set, and one {@code getData} per change.
 *
 * <p>A load lists the prefix, reads every child it finds, and lists each child that has children
 * of its own, all pipelined; it ends when every request has been answered. The watch is set
 * (requested) first, so every change the load might miss comes as an event after it. Events of a
 * persistent watch carry no data, so a created or changed node is read; a deleted one is removed
 * at once. Every reply and event is a fact applied as it arrives (see {@link ConfigTree}).
 *
 * <p>ZooKeeper sets the watch again by itself when the session reconnects, but does not replay
 * the changes it missed meanwhile: so every reconnection loads the prefix again (a listing also
 * tells which nodes are gone), and a new session after expiry first sets the watch again. Only
 * facts of the session's current handle are applied; an old handle's late ones are dropped.
 *
 * <p>Runs on ZooKeeper's event thread; never blocks there.
 */
final class ConfigSync implements SessionObserver {
  private static final Logger log = LoggerFactory.getLogger(ConfigSync.class);

  /** Where the changes go; called under this object's lock, in order. */
  interface Sink {
    void changed(List<ConfigTree.Change> changes);

    /** A load ended: the copy equals the ensemble. */
    void synced();
  }

  private final Session session;
  private final String serverPrefix;
  private final ConfigTree tree;
  private final Sink sink;

  // Guarded by this.
  private Session.Handle watched;
  private Watcher watcher;
  private boolean watchSet;
  private int epoch;
  private boolean loading;
  private int pending;
  private boolean loadFailed;
  /** Loads failed in a row for a reason other than the connection: grows the pause before the next. */
  private int failedLoads;
  private boolean synced;
  private boolean closed;
  private boolean removalPending;
  // Writes of the config center itself on their way, per key, and the latest event of each such
  // key whose read waits for them (its zxid): see ownWriteStarted.
  private final Map<String, Integer> ownWrites = new HashMap<>();
  private final Map<String, Long> deferredReads = new HashMap<>();
  final FailureReport failure = new FailureReport();

  ConfigSync(Session session, String serverPrefix, ConfigTree tree, Sink sink) {
    this.session = session;
    this.serverPrefix = serverPrefix;
    this.tree = tree;
    this.sink = sink;
  }

  /** Starts following: at once if connected, else when the client connects. */
  void start() {
    session.addObserver(this);
    synchronized (this) {
      if (session.state().isConnected()) {
        follow(session.handle(), false);
      }
    }
    if (session.isClosed()) {
      sessionClosed();
    }
  }

  synchronized boolean isSynced() {
    return synced;
  }

  /**
   * Waits until synced, the deadline, or (if {@code whileConnected}) the connection is down.
   *
   * @return whether synced
   */
  synchronized boolean awaitSynced(long deadlineNanos, boolean whileConnected) throws InterruptedException {
    while (!synced && !closed && !failure.hasFailed()) {
      if (whileConnected && !session.state().isConnected()) {
        return false;
      }
      long left = deadlineNanos - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return synced;
  }

  /**
   * Fact from the reply to a request of the config center itself on {@code handle} (a write, or a
   * read after a lost reply): {@code key} holds {@code data}. Applied in its place among the
   * watch's events, since both arrive in order on the handle's event thread.
   */
  synchronized void nodeSeen(Session.Handle handle, String key, byte[] data, Stat stat) {
    if (accepts(handle)) {
      emit(tree.put(key, ConfigTree.Node.of(data, stat)));
      if (stat.getNumChildren() == 0) {
        emit(tree.removeDescendants(key));
      }
    }
  }

  /** Fact from such a reply: {@code key} is absent. */
  synchronized void nodeAbsent(Session.Handle handle, String key) {
    if (accepts(handle)) {
      emit(tree.removeSubtree(key));
    }
  }

  /**
   * A write of the config center on {@code key} is about to be sent. Until its reply, events of
   * the key do not send a read at once: the event of the write itself comes just before its
   * reply, and the reply tells the copy all a read would. So {@link #ownWriteEnded} reads only
   * if an event came that is newer than the write (another client's write in between).
   */
  synchronized void ownWriteStarted(String key) {
    ownWrites.merge(key, 1, Integer::sum);
  }

  /**
   * The reply to such a write came, on {@code handle}; {@code written} is the node's stat if the
   * write was applied (its fact already given to {@link #nodeSeen}), else null.
   */
  synchronized void ownWriteEnded(Session.Handle handle, String key, Stat written) {
    if (ownWrites.merge(key, -1, Integer::sum) > 0) {
      return; // a later write of the same key answers for the events too
    }
    ownWrites.remove(key);
    Long eventZxid = deferredReads.remove(key);
    if (eventZxid == null || !accepts(handle) || handle != watched) {
      return; // nothing waited, or a reload of the new connection reads everything anyway
    }
    boolean coveredByTheWrite = written != null && eventZxid != WatchedEvent.NO_ZXID
        && written.getMzxid() >= eventZxid;
    if (!coveredByTheWrite) {
      read(handle, key, epoch, false);
    }
  }

  /** Whether facts from {@code handle} may be applied now; call under this lock. */
  private boolean accepts(Session.Handle handle) {
    return !closed && !failure.hasFailed() && handle == session.handle();
  }

  /**
   * Stops following for an error retrying cannot cure; call under this lock. The copy keeps the
   * values it has (reads go on serving them) but no longer follows the ensemble.
   */
  private void stop(RuntimeException error) {
    if (closed || failure.hasFailed()) {
      return;
    }
    log.error("The config center on {} stopped following the ensemble, and retrying cannot cure"
        + " why; it serves the values it has", serverPrefix, error);
    loading = false;
    failure.fail(error);
    setSynced(false);
  }

  private RuntimeException refusal(Code code, String key) {
    return Errors.translate(KeeperException.create(code, pathOf(key)), session.settings().onClient(pathOf(key)));
  }

  // ---- following the ensemble ---------------------------------------------------------------

  private void follow(Session.Handle handle, boolean reconnected) {
    if (watched != handle) {
      if (watched != null) {
        ConfigWatches.stopped(watched, serverPrefix);
      }
      watched = handle;
      watcher = event -> onEvent(handle, event);
      watchSet = false;
      ConfigWatches.started(handle, serverPrefix);
    } else if (!reconnected && (loading || synced)) {
      return; // already following this connection
    }
    if (!watchSet) {
      try {
        handle.zk().addWatch(serverPrefix, watcher, AddWatchMode.PERSISTENT_RECURSIVE,
            (rc, path, ctx) -> onWatchAdded(handle, rc), null);
      } catch (RuntimeException e) {
        log.debug("Cannot watch {}: the handle is closing", serverPrefix, e);
        return;
      }
    }
    load(handle);
  }

  private void onWatchAdded(Session.Handle handle, int rc) {
    synchronized (this) {
      if (handle != watched || closed) {
        return;
      }
      Code code = Code.get(rc);
      if (code == Code.OK) {
        watchSet = true;
      } else if (Errors.isUnrecoverable(code)) {
        stop(refusal(code, ""));
      } else if (!Errors.isConnectionProblem(code)) {
        log.error("Cannot watch the config prefix {}: {}; the local copy will not follow changes", serverPrefix, code);
      }
      // On connection loss the next reconnection sets it again.
    }
  }

  private void load(Session.Handle handle) {
    epoch++;
    loading = true;
    loadFailed = false;
    pending = 0;
    setSynced(false);
    list(handle, "", epoch);
  }

  private void list(Session.Handle handle, String key, int loadEpoch) {
    pending++;
    try {
      handle.zk().getChildren(pathOf(key), false,
          (rc, path, ctx, children) -> onChildren(handle, key, loadEpoch, rc, children), null);
    } catch (RuntimeException e) {
      failStep(loadEpoch);
    }
  }

  private void read(Session.Handle handle, String key, int loadEpoch, boolean partOfLoad) {
    if (partOfLoad) {
      pending++;
    }
    try {
      handle.zk().getData(pathOf(key), false,
          (rc, path, ctx, data, stat) -> onData(handle, key, loadEpoch, partOfLoad, rc, data, stat), null);
    } catch (RuntimeException e) {
      if (partOfLoad) {
        failStep(loadEpoch);
      }
    }
  }

  private synchronized void onChildren(Session.Handle handle, String key, int loadEpoch, int rc,
      List<String> children) {
    if (!accepts(handle)) {
      return;
    }
    Code code = Code.get(rc);
    if (code == Code.OK) {
      emit(tree.retainChildren(key, children));
      if (loadEpoch == epoch && loading) {
        for (String child : children) {
          read(handle, key.isEmpty() ? child : key + "/" + child, loadEpoch, true);
        }
      }
    } else if (code == Code.NONODE) {
      emit(tree.removeSubtree(key));
    } else {
      unreadable(key, code, loadEpoch);
    }
    stepDone(loadEpoch);
  }

  private synchronized void onData(Session.Handle handle, String key, int loadEpoch, boolean partOfLoad, int rc,
      byte[] data, Stat stat) {
    if (!accepts(handle)) {
      return;
    }
    Code code = Code.get(rc);
    if (code == Code.OK) {
      emit(tree.put(key, ConfigTree.Node.of(data, stat)));
      if (stat.getNumChildren() == 0) {
        emit(tree.removeDescendants(key));
      } else if (partOfLoad && loadEpoch == epoch && loading) {
        list(handle, key, loadEpoch);
      }
    } else if (code == Code.NONODE) {
      emit(tree.removeSubtree(key));
    } else if (partOfLoad) {
      unreadable(key, code, loadEpoch);
    }
    if (partOfLoad) {
      stepDone(loadEpoch);
    }
  }

  private void unreadable(String key, Code code, int loadEpoch) {
    if (Errors.isUnrecoverable(code) && (key.isEmpty() || code != Code.NOAUTH)) {
      // The prefix itself refused (nothing under it can be seen), or a refusal no retry can cure.
      stop(refusal(code, key));
    } else if (code == Code.NOAUTH) {
      // Not readable by this identity: not part of what it can see. The load goes on.
      log.warn("The config node {} is not readable by this client's identity (its ACL); it is left out",
          pathOf(key));
    } else if (loadEpoch == epoch) {
      loadFailed = true;
      if (!Errors.isConnectionProblem(code)) {
        log.warn("Loading the config under {} failed at {}: {}; trying again", serverPrefix, pathOf(key), code);
        Session.Handle handle = watched;
        long delay = session.settings().retryPolicy().delayBefore(Math.min(++failedLoads, 10)).toNanos();
        session.schedule(() -> retryLoad(handle), delay);
      }
      // On connection loss the reconnection loads again.
    }
  }

  private synchronized void retryLoad(Session.Handle handle) {
    if (accepts(handle) && handle == watched && !loading && !synced && session.state().isConnected()) {
      load(handle);
    }
  }

  private void failStep(int loadEpoch) {
    if (loadEpoch == epoch) {
      loadFailed = true;
    }
    stepDone(loadEpoch);
  }

  private void stepDone(int loadEpoch) {
    if (loadEpoch != epoch || !loading) {
      return;
    }
    if (--pending == 0) {
      loading = false;
      if (!loadFailed && session.state().isConnected()) {
        failedLoads = 0;
        setSynced(true);
        sink.synced();
      }
    }
  }

  private void onEvent(Session.Handle handle, WatchedEvent event) {
    synchronized (this) {
      if (!accepts(handle) || handle != watched) {
        return;
      }
      String key = keyOf(event.getPath());
      if (key == null) {
        return;
      }
      switch (event.getType()) {
        case NodeCreated, NodeDataChanged -> {
          if (key.isEmpty()) {
            return;
          }
          if (ownWrites.containsKey(key)) {
            long zxid = event.getZxid();
            deferredReads.merge(key, zxid, (a, b) -> a == WatchedEvent.NO_ZXID || b == WatchedEvent.NO_ZXID
                ? WatchedEvent.NO_ZXID : Math.max(a, b));
          } else {
            read(handle, key, epoch, false);
          }
        }
        case NodeDeleted -> emit(tree.removeSubtree(key));
        case PersistentWatchRemoved -> watchSet = false;
        default -> { }
      }
    }
  }

  private void emit(List<ConfigTree.Change> changes) {
    if (!changes.isEmpty()) {
      sink.changed(changes);
    }
  }

  private void setSynced(boolean now) {
    synced = now;
    notifyAll();
  }

  // ---- session ------------------------------------------------------------------------------

  @Override
  public void connectionStateChanged(ConnectionState state, Session.Handle handle) {
    synchronized (this) {
      if (closed) {
        if (removalPending && handle == watched) {
          if (state == ConnectionState.RECONNECTED) {
            removeWatch();
          } else if (state == ConnectionState.LOST && handle.isExpired()) {
            // The watch ended with the session.
            removalPending = false;
            watched = null;
            session.removeObserver(this);
          }
        }
        return;
      }
      switch (state) {
        case CONNECTED, RECONNECTED -> {
          if (handle == session.handle()) {
            follow(handle, state == ConnectionState.RECONNECTED);
          }
        }
        case SUSPENDED -> setSynced(false);
        case LOST -> {
          setSynced(false);
          if (handle.isExpired() && handle == watched) {
            // The watch ended with the session; the new session's connection sets it again.
            ConfigWatches.stopped(handle, serverPrefix);
            watched = null;
            watchSet = false;
            loading = false;
          }
        }
        default -> { }
      }
      notifyAll();
    }
  }

  @Override
  public synchronized void sessionClosed() {
    if (!closed) {
      failure.fail(new ClientClosedException(session.settings().connectString()));
    }
    if (watched != null) {
      ConfigWatches.stopped(watched, serverPrefix);
      watched = null;
    }
    closed = true;
    removalPending = false;
    setSynced(false);
  }

  /** Stops following and removes the watch from the server (on reconnection if need be). */
  void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      loading = false;
      setSynced(false);
      if (watched == null || watched.isExpired() || session.isClosed()) {
        if (watched != null) {
          ConfigWatches.stopped(watched, serverPrefix);
        }
        session.removeObserver(this);
        return;
      }
      ConfigWatches.stopped(watched, serverPrefix);
      removalPending = true;
      removeWatch();
    }
  }

  /**
   * Removes this watch: from the server too if no other config center of the session watches the
   * prefix. A removal that fails for connection loss is tried again on reconnection, since the
   * client would set the watch again then.
   */
  private void removeWatch() {
    Session.Handle handle = watched;
    boolean fromServer = !ConfigWatches.watched(handle, serverPrefix);
    ConfigWatches.remove(handle, serverPrefix, watcher, fromServer, removed -> {
      synchronized (this) {
        if (removed && handle == watched) {
          removalPending = false;
          watched = null;
          session.removeObserver(this);
        }
      }
    });
  }

  // ---- paths --------------------------------------------------------------------------------

  String pathOf(String key) {
    return key.isEmpty() ? serverPrefix : serverPrefix + "/" + key;
  }

  /** The key of a path under the prefix: {@code ""} for the prefix, null for a path outside. */
  String keyOf(String path) {
    if (path == null) {
      return null;
    }
    if (path.equals(serverPrefix)) {
      return "";
    }
    return path.startsWith(serverPrefix + "/") ? path.substring(serverPrefix.length() + 1) : null;
  }
}
