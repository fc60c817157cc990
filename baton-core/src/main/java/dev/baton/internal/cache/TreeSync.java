package dev.baton.internal.cache;

import dev.baton.ClientClosedException;
import dev.baton.ConnectionState;
import dev.baton.internal.session.Errors;
import dev.baton.internal.session.FailureReport;
import dev.baton.internal.session.Session;
import dev.baton.internal.session.SessionObserver;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a {@link NodeTree} equal to the nodes at and under a path on the ensemble: one persistent
 * watch on the path (recursive unless only the node itself or its children's names are kept), a
 * full load after it is set, and one {@code getData} per change. The public caches, the config
 * center and the registry stand on it.
 *
 * <p>A load lists the path, reads every child it finds, and lists each child that has children
 * of its own, all pipelined; it ends when every request has been answered. The watch is set
 * (requested) first, so every change the load might miss comes as an event after it. Events of a
 * persistent watch carry no data, so a created or changed node is read; a deleted one is removed
 * at once. Every reply and event is a fact applied as it arrives (see {@link NodeTree}), and the
 * tree reports only the changes its owner counts as such: so no event is missed (the watch was
 * set before the load) and none is a phantom (a node read again unchanged is no change).
 *
 * <p>ZooKeeper sets the watch again by itself when the session reconnects, but does not replay
 * the changes it missed meanwhile: so every reconnection loads the path again (a listing also
 * tells which nodes are gone), and a new session after expiry first sets the watch again. Only
 * facts of the session's current handle are applied; an old handle's late ones are dropped.
 *
 * <p>Runs on ZooKeeper's event thread; never blocks there.
 *
 * @param <N> what the tree keeps of a node
 */
public final class TreeSync<N> implements SessionObserver {
  private static final Logger log = LoggerFactory.getLogger(TreeSync.class);

  /** What is kept of the watched path. */
  public enum Scope {
    /** The path's node alone (a persistent, not recursive, watch). */
    NODE,
    /**
     * The names of the path's children, not their data: a persistent (not recursive) watch on the
     * path, and one listing per change of its children. Changes below the children cost nothing.
     */
    CHILDREN,
    /** The nodes below the path, not the path's own node. */
    DESCENDANTS,
    /** The path's node and every node below it. */
    TREE
  }

  /**
   * Makes what the tree keeps of a node from a read's reply. In {@link Scope#CHILDREN} nodes are
   * not read: {@code data} and {@code stat} are null.
   */
  public interface NodeReader<N> {
    N read(String key, byte[] data, Stat stat);
  }

  /** Where the changes go; called under this object's lock, in order. */
  public interface Sink<N> {
    void changed(List<NodeTree.Change<N>> changes);

    /** A load ended: the copy equals the ensemble. */
    void synced();
  }

  private final Session session;
  private final String serverPath;
  private final Scope scope;
  private final NodeTree<N> tree;
  private final NodeReader<N> reader;
  private final Sink<N> sink;
  private final Watcher.WatcherType watchType;

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
  /** An error retrying cannot cure (the path's ACL refuses this identity, say): the copy stops following. */
  public final FailureReport failure = new FailureReport();
  private boolean removalPending;
  // Writes of the owner itself on their way, per key, and the latest event of each such key
  // whose read waits for them (its zxid): see ownWriteStarted.
  private final Map<String, Integer> ownWrites = new HashMap<>();
  private final Map<String, Long> deferredReads = new HashMap<>();
  /**
   * Completed (and replaced) at each change a waiter of {@link #awaitSynced} looks for. Waiters
   * wait on it outside this object's monitor: a virtual thread waiting inside a monitor pins its
   * carrier (JDK 21-23), and the event thread, which takes this monitor for every fact, must never
   * queue behind a caller's thread. Replaced under this monitor, so a waiter that read it there
   * after checking the state cannot miss the change that follows.
   */
  private CompletableFuture<Void> nextChange = new CompletableFuture<>();

  public TreeSync(Session session, String serverPath, Scope scope, NodeTree<N> tree, NodeReader<N> reader,
      Sink<N> sink) {
    this.session = session;
    this.serverPath = serverPath;
    this.scope = scope;
    this.tree = tree;
    this.reader = reader;
    this.sink = sink;
    this.watchType = recursive() ? Watcher.WatcherType.PersistentRecursive : Watcher.WatcherType.Persistent;
  }

  /** Starts following: at once if connected, else when the client connects. */
  public void start() {
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

  public synchronized boolean isSynced() {
    return synced;
  }

  /**
   * Waits until synced, the deadline, or (if {@code whileConnected}) the connection is down.
   *
   * @return whether synced
   */
  public boolean awaitSynced(long deadlineNanos, boolean whileConnected) throws InterruptedException {
    while (true) {
      CompletableFuture<Void> change;
      synchronized (this) { // only to read the state: nothing blocks in here
        if (synced || closed || failure.hasFailed()) {
          return synced;
        }
        if (whileConnected && !session.state().isConnected()) {
          return false;
        }
        change = nextChange;
      }
      long left = deadlineNanos - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      try {
        change.get(left, TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        // Past the deadline: the loop checks the state once more, then says false.
      } catch (ExecutionException e) {
        throw new IllegalStateException(e); // never completed exceptionally
      }
    }
  }


  /**
   * Fact from the reply to a request of the owner itself on {@code handle} (a write, or a read
   * after a lost reply): {@code key} holds {@code data}. Applied in its place among the watch's
   * events, since both arrive in order on the handle's event thread.
   */
  public synchronized void nodeSeen(Session.Handle handle, String key, byte[] data, Stat stat) {
    if (accepts(handle)) {
      emit(tree.put(key, reader.read(key, data, stat)));
      if (stat.getNumChildren() == 0) {
        emit(tree.removeDescendants(key));
      }
    }
  }

  /** Fact from such a reply: {@code key} is absent. */
  public synchronized void nodeAbsent(Session.Handle handle, String key) {
    if (accepts(handle)) {
      emit(tree.removeSubtree(key));
    }
  }

  /**
   * A write of the owner on {@code key} is about to be sent. Until its reply, events of the key
   * do not send a read at once: the event of the write itself comes just before its reply, and
   * the reply tells the copy all a read would. So {@link #ownWriteEnded} reads only if an event
   * came that is newer than the write (another client's write in between).
   */
  public synchronized void ownWriteStarted(String key) {
    ownWrites.merge(key, 1, Integer::sum);
  }

  /**
   * The reply to such a write came, on {@code handle}; {@code written} is the node's stat if the
   * write was applied (its fact already given to {@link #nodeSeen}), else null.
   */
  public synchronized void ownWriteEnded(Session.Handle handle, String key, Stat written) {
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

  /**
   * Reads {@code key} again and applies what it finds, then runs {@code then} on the event
   * thread. The session answers in order, so once {@code then} runs, the copy holds {@code key}
   * as of no earlier than this call: a caller that heard of another change (in another copy) can
   * wait this way for this copy to have caught up with it. Without a connection, {@code then} runs
   * at once (the reload after the reconnection catches up anyway).
   */
  public void refresh(String key, Runnable then) {
    Session.Handle handle;
    int loadEpoch;
    synchronized (this) {
      handle = watched;
      loadEpoch = epoch;
      if (handle == null || !accepts(handle)) {
        handle = null;
      }
    }
    if (handle == null) {
      then.run();
      return;
    }
    Session.Handle on = handle;
    try {
      on.zk().getData(pathOf(key), false, (rc, path, ctx, data, stat) -> {
        onData(on, key, loadEpoch, false, rc, data, stat);
        then.run();
      }, null);
    } catch (RuntimeException e) {
      then.run();
    }
  }

  /** Whether facts from {@code handle} may be applied now; call under this lock. */
  private boolean accepts(Session.Handle handle) {
    return !closed && !failure.hasFailed() && handle == session.handle();
  }

  /**
   * Stops following for an error retrying cannot cure; call under this lock. The copy keeps what
   * it has (reads go on serving it) but no longer follows the ensemble, and says why.
   */
  private void stop(RuntimeException error) {
    if (closed || failure.hasFailed()) {
      return;
    }
    log.error("The local copy of {} stopped following the ensemble, and retrying cannot cure why;"
        + " it keeps what it has", serverPath, error);
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
        TreeWatches.stopped(watched, serverPath, watchType);
      }
      watched = handle;
      watcher = session.watching(event -> onEvent(handle, event));
      watchSet = false;
      TreeWatches.started(handle, serverPath, watchType);
    } else if (!reconnected && (loading || synced)) {
      return; // already following this connection
    }
    if (!watchSet) {
      AddWatchMode mode = recursive() ? AddWatchMode.PERSISTENT_RECURSIVE : AddWatchMode.PERSISTENT;
      try {
        handle.zk().addWatch(serverPath, watcher, mode, (rc, path, ctx) -> onWatchAdded(handle, rc), null);
      } catch (RuntimeException e) {
        log.debug("Cannot watch {}: the handle is closing", serverPath, e);
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
        log.error("Cannot watch {}: {}; the local copy will not follow changes", serverPath, code);
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
    if (scope == Scope.NODE || scope == Scope.TREE) {
      read(handle, "", epoch, true);
    }
    if (scope != Scope.NODE) {
      list(handle, "", epoch);
    }
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
      if (scope == Scope.CHILDREN) {
        for (String child : children) {
          emit(tree.put(child, reader.read(child, null, null)));
        }
      } else if (loadEpoch == epoch && loading) {
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
      emit(tree.put(key, reader.read(key, data, stat)));
      if (scope == Scope.NODE) {
        // Only the node itself is kept.
      } else if (stat.getNumChildren() == 0) {
        emit(tree.removeDescendants(key));
      } else if (partOfLoad && loadEpoch == epoch && loading && !key.isEmpty()) {
        list(handle, key, loadEpoch); // the path's own children are listed by the load itself
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
      // The root itself refused (nothing under it can be seen), or a refusal no retry can cure.
      stop(refusal(code, key));
    } else if (code == Code.NOAUTH) {
      // Not readable by this identity: not part of what it can see. The load goes on.
      log.warn("The node {} is not readable by this client's identity (its ACL); it is left out", pathOf(key));
    } else if (loadEpoch == epoch) {
      loadFailed = true;
      if (!Errors.isConnectionProblem(code)) {
        log.warn("Loading {} failed at {}: {}; trying again", serverPath, pathOf(key), code);
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
      if (event.getType() == Watcher.Event.EventType.PersistentWatchRemoved) {
        watchSet = false;
        return;
      }
      String key = keyOf(event.getPath());
      if (key == null) {
        return;
      }
      if (scope == Scope.CHILDREN) {
        childrenEvent(handle, event.getType());
        return;
      }
      switch (event.getType()) {
        case NodeCreated, NodeDataChanged -> {
          if (key.isEmpty() && scope == Scope.DESCENDANTS) {
            return; // the path's own node is not kept
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
        default -> { } // NodeChildrenChanged of a NODE watch: its children are not kept
      }
    }
  }

  /** An event of the path itself, in {@link Scope#CHILDREN}; call under this lock. */
  private void childrenEvent(Session.Handle handle, Watcher.Event.EventType type) {
    switch (type) {
      // A listing is a fact as of its reply, and replies come in order: the last one wins.
      case NodeChildrenChanged, NodeCreated -> list(handle, "", epoch);
      case NodeDeleted -> emit(tree.removeSubtree(""));
      default -> { } // its own data is not kept
    }
  }

  private boolean recursive() {
    return scope == Scope.DESCENDANTS || scope == Scope.TREE;
  }

  private void emit(List<NodeTree.Change<N>> changes) {
    if (!changes.isEmpty()) {
      sink.changed(changes);
    }
  }

  private void setSynced(boolean now) {
    synced = now;
    changed();
  }

  /** Wakes the waiters of {@link #awaitSynced}; call under this lock. Completing does not block. */
  private void changed() {
    CompletableFuture<Void> woken = nextChange;
    nextChange = new CompletableFuture<>();
    woken.complete(null);
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
            TreeWatches.stopped(handle, serverPath, watchType);
            watched = null;
            watchSet = false;
            loading = false;
          }
        }
        default -> { }
      }
      changed();
    }
  }

  @Override
  public synchronized void sessionClosed() {
    if (!closed) {
      failure.fail(new ClientClosedException(session.settings().connectString()));
    }
    if (watched != null) {
      TreeWatches.stopped(watched, serverPath, watchType);
      watched = null;
    }
    closed = true;
    removalPending = false;
    setSynced(false);
  }

  /** Stops following and removes the watch from the server (on reconnection if need be). */
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      loading = false;
      setSynced(false);
      if (watched == null || watched.isExpired() || session.isClosed()) {
        if (watched != null) {
          TreeWatches.stopped(watched, serverPath, watchType);
        }
        session.removeObserver(this);
        return;
      }
      TreeWatches.stopped(watched, serverPath, watchType);
      removalPending = true;
      removeWatch();
    }
  }

  /**
   * Removes this watch: from the server too if no other cache of the session watches the path.
   * A removal that fails for connection loss is tried again on reconnection, since the client
   * would set the watch again then.
   */
  private void removeWatch() {
    Session.Handle handle = watched;
    boolean fromServer = !TreeWatches.watched(handle, serverPath, watchType);
    TreeWatches.remove(handle, serverPath, watchType, watcher, fromServer, removed -> {
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

  public String pathOf(String key) {
    return key.isEmpty() ? serverPath : serverPath.equals("/") ? "/" + key : serverPath + "/" + key;
  }

  /** The key of a path at or under the watched one: {@code ""} for itself, null for a path outside. */
  public String keyOf(String path) {
    if (path == null) {
      return null;
    }
    if (path.equals(serverPath)) {
      return "";
    }
    if (serverPath.equals("/")) {
      return path.startsWith("/") ? path.substring(1) : null;
    }
    return path.startsWith(serverPath + "/") ? path.substring(serverPath.length() + 1) : null;
  }
}
