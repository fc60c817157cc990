package dev.baton.internal.cache;

import dev.baton.BatonInterruptedException;
import dev.baton.cache.CacheListener;
import dev.baton.cache.CachedNode;
import dev.baton.cache.NodeCache;
import dev.baton.cache.TreeCache;
import dev.baton.internal.session.Durations;
import dev.baton.internal.session.Session;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.data.Stat;

/**
 * The public caches: a {@link TreeSync} of the path's node and subtree ({@link TreeCache}) or of
 * the node alone ({@link NodeCache}), whose changes become listener events. The copy is keyed by
 * the path relative to the cache's root, as the sync keeps it; the API speaks client paths.
 */
public final class ZkCache implements TreeCache, NodeCache, TreeSync.Sink<CachedNode> {

  /** One event for a listener. */
  private record Event(CachedNode before, CachedNode after, boolean initialized) {}

  private final Session session;
  private final String path;
  private final NodeTree<CachedNode> tree = new NodeTree<>(CachedNode::equals);
  private final TreeSync<CachedNode> sync;
  private final SerialListeners<CacheListener, Event> listeners = new SerialListeners<>(ZkCache::tell);
  private final CountDownLatch initialized = new CountDownLatch(1);
  // Guarded by this.
  private boolean started;
  private boolean closed;

  private ZkCache(Session session, String path, TreeSync.Scope scope) {
    this.session = session;
    this.path = path;
    this.sync = new TreeSync<>(session, session.settings().onServer(path), scope, tree, this::nodeOf, this);
    // A refusal retrying cannot cure ends the wait for the first load: awaitInitialized throws it.
    sync.failure.add(error -> initialized.countDown(), Runnable::run);
  }

  /** A cache of {@code path} and its subtree; {@code path} already checked. */
  public static ZkCache tree(Session session, String path) {
    return new ZkCache(session, path, TreeSync.Scope.TREE);
  }

  /** A cache of the node at {@code path} alone; {@code path} already checked. */
  public static ZkCache node(Session session, String path) {
    return new ZkCache(session, path, TreeSync.Scope.NODE);
  }

  private CachedNode nodeOf(String key, byte[] data, Stat stat) {
    return new CachedNode(clientPathOf(key), data, stat.getVersion(), stat.getCzxid(), stat.getMzxid(),
        stat.getCtime(), stat.getMtime(), stat.getEphemeralOwner());
  }

  private String clientPathOf(String key) {
    return key.isEmpty() ? path : path.equals("/") ? "/" + key : path + "/" + key;
  }

  /** The key of a client path at or under the root; null outside. */
  private String keyOf(String clientPath) {
    Objects.requireNonNull(clientPath, "path must not be null");
    if (clientPath.equals(path)) {
      return "";
    }
    String below = path.equals("/") ? path : path + "/";
    return clientPath.startsWith(below) ? clientPath.substring(below.length()) : null;
  }

  @Override
  public String path() {
    return path;
  }

  @Override
  public ZkCache start() {
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException("The cache of " + path + " is closed; make a new one");
      }
      if (started) {
        throw new IllegalStateException("The cache of " + path + " was started already");
      }
      session.checkOpen();
      started = true;
    }
    sync.start();
    return this;
  }

  @Override
  public boolean awaitInitialized(Duration timeout) {
    Durations.checkedTimeout(timeout);
    synchronized (this) {
      if (!started) {
        throw new IllegalStateException("The cache of " + path + " is not started: call start() first");
      }
    }
    long nanos = Durations.timeoutNanos(timeout);
    try {
      boolean done;
      if (nanos < 0) {
        initialized.await();
        done = true;
      } else {
        done = initialized.await(nanos, TimeUnit.NANOSECONDS);
      }
      Optional<RuntimeException> failed = sync.failure.failure();
      if (failed.isPresent()) {
        throw failed.get();
      }
      return done;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BatonInterruptedException("Interrupted while waiting for the cache of " + path, e);
    }
  }

  @Override
  public boolean isSynced() {
    return sync.isSynced();
  }

  @Override
  public Optional<RuntimeException> failure() {
    return sync.failure.failure();
  }

  @Override
  public Optional<CachedNode> get(String clientPath) {
    String key = keyOf(clientPath);
    return key == null ? Optional.empty() : Optional.ofNullable(tree.node(key));
  }

  @Override
  public Optional<CachedNode> current() {
    return Optional.ofNullable(tree.node(""));
  }

  @Override
  public SortedMap<String, CachedNode> children(String clientPath) {
    String key = keyOf(clientPath);
    SortedMap<String, CachedNode> children = new TreeMap<>();
    if (key == null) {
      return children;
    }
    int start = key.isEmpty() ? 0 : key.length() + 1;
    tree.descendants(key).forEach((k, node) -> {
      if (k.indexOf('/', start) < 0) {
        children.put(k.substring(start), node);
      }
    });
    return children;
  }

  @Override
  public Map<String, CachedNode> nodes() {
    Map<String, CachedNode> nodes = new TreeMap<>();
    tree.nodes().forEach((key, node) -> nodes.put(node.path(), node));
    return Collections.unmodifiableMap(nodes);
  }

  @Override
  public int size() {
    return tree.nodes().size();
  }

  @Override
  public void addListener(CacheListener listener) {
    addListener(listener, session.eventExecutor());
  }

  @Override
  public void addListener(CacheListener listener, Executor executor) {
    Objects.requireNonNull(listener, "listener must not be null");
    Objects.requireNonNull(executor, "executor must not be null");
    listeners.add(listener, executor);
  }

  @Override
  public void removeListener(CacheListener listener) {
    listeners.remove(listener);
  }

  // ---- the sync's facts (under its lock, in order) ------------------------------------------

  @Override
  public void changed(List<NodeTree.Change<CachedNode>> changes) {
    List<Event> events = new ArrayList<>(changes.size());
    for (NodeTree.Change<CachedNode> change : changes) {
      events.add(new Event(change.before(), change.after(), false));
    }
    listeners.deliver(events);
  }

  @Override
  public void synced() {
    if (initialized.getCount() > 0) {
      // Handed to the listeners first: one added once awaitInitialized returned must not hear it.
      listeners.deliver(List.of(new Event(null, null, true)));
      initialized.countDown();
    }
  }

  private static void tell(CacheListener listener, Event event) {
    if (event.initialized()) {
      listener.initialized();
    } else if (event.before() == null) {
      listener.added(event.after());
    } else if (event.after() == null) {
      listener.removed(event.before());
    } else {
      listener.changed(event.before(), event.after());
    }
  }

  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    listeners.clear();
    sync.close();
  }

  @Override
  public String toString() {
    return "Cache[" + path + (isSynced() ? ", synced" : "") + "]";
  }
}
