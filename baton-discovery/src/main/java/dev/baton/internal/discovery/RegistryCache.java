package dev.baton.internal.discovery;

import dev.baton.BatonInterruptedException;
import dev.baton.ConnectionException;
import dev.baton.RetryPolicy;
import dev.baton.internal.cache.NodeTree;
import dev.baton.internal.cache.TreeSync;
import dev.baton.internal.session.Durations;
import dev.baton.internal.session.Session;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiPredicate;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A local copy the registry keeps of one path, on the {@link TreeSync} every cache of Baton
 * stands on, shared by the client's users of the same path and kind ({@link #acquire}): one
 * watch and one load however many views of a service the client makes. The last one out
 * ({@link #release}) closes the sync, which removes the watch from the ensemble.
 *
 * <p>Subscribers hear the copy's snapshot after each change, except while a load is under way
 * (after a reconnection): then they hear once, when it is done, of the difference only. A
 * refusal retrying cannot cure stops the sync (see {@link TreeSync}); the cache keeps what it
 * has, stale, and is no longer shared, so that a later {@link #acquire} tries afresh once, in
 * the caller's thread, rather than the client retrying on every reconnection.
 *
 * @param <N> what the tree keeps of a node
 * @param <T> the snapshot subscribers get
 */
abstract class RegistryCache<N, T> implements TreeSync.Sink<N> {
  private static final Logger log = LoggerFactory.getLogger(RegistryCache.class);
  /** Changed under its own monitor; removals of a stopped cache without it (see {@link #forget}). */
  private static final Map<Key, RegistryCache<?, ?>> SHARED = new ConcurrentHashMap<>();

  private static final int MAX_COUNTED_RETRIES = 1_000;
  /** Far enough to mean "no bound", near enough not to overflow when added to {@code nanoTime}. */
  private static final long FOREVER = Long.MAX_VALUE / 4;

  private record Key(Session session, String serverPath, Class<?> kind) {}

  protected final String serverPath;
  protected final NodeTree<N> tree;
  private final Session session;
  private final TreeSync<N> sync;
  private final Set<Consumer<T>> subscribers = ConcurrentHashMap.newKeySet();
  private volatile Key key;
  // Guarded by SHARED.
  private int refs;
  private boolean closed;
  // Guarded by the sync (its sink calls run under its lock).
  private boolean unpublished;

  RegistryCache(Session session, String serverPath, TreeSync.Scope scope, BiPredicate<N, N> same,
      TreeSync.NodeReader<N> reader) {
    this.session = session;
    this.serverPath = serverPath;
    this.tree = new NodeTree<>(same);
    this.sync = new TreeSync<>(session, serverPath, scope, tree, reader, this);
    sync.failure.add(error -> forget(), Runnable::run);
  }

  /** The client's cache of {@code serverPath} of this kind, made and started by {@code factory} if there is none. */
  @SuppressWarnings("unchecked")
  static <C extends RegistryCache<?, ?>> C acquire(Session session, String serverPath, Class<C> kind,
      Supplier<C> factory) {
    RegistryCache<?, ?> cache;
    boolean made = false;
    synchronized (SHARED) {
      session.checkOpen();
      Key key = new Key(session, serverPath, kind);
      cache = SHARED.get(key);
      if (cache == null) {
        cache = factory.get();
        cache.key = key;
        SHARED.put(key, cache);
        made = true;
      }
      cache.refs++;
    }
    if (made) {
      cache.sync.start();
    }
    return (C) cache;
  }

  /** One holder is done; the last one closes the sync, which removes its watch from the ensemble. */
  final void release() {
    synchronized (SHARED) {
      if (closed || --refs > 0) {
        return;
      }
      closed = true;
      SHARED.remove(key, this);
      // Under SHARED: the removal of the watch is sent before a new cache's addWatch on the same path.
      sync.close();
    }
  }

  /**
   * Told under the sync's lock when it stops: so not under SHARED's monitor, which {@link
   * #release} holds while it takes the sync's lock.
   */
  private void forget() {
    if (key != null) {
      SHARED.remove(key, this);
    }
  }

  /**
   * Waits for the first load: while the connection is down, for the connection timeout and the
   * pauses of the retry policy's retries (at most a thousand of them).
   *
   * @throws ConnectionException naming {@code clientPath} if not loaded by then
   * @throws RuntimeException the refusal that stopped the sync (an ACL, say), naming the path
   * @throws IllegalStateException if released meanwhile
   */
  final void awaitLoaded(String clientPath) {
    RetryPolicy policy = session.settings().retryPolicy();
    long connectionTimeout = Durations.timeoutNanos(session.settings().connectionTimeout());
    long budget = connectionTimeout < 0 ? FOREVER : connectionTimeout;
    // The pauses of as many retries as the policy allows, up to a thousand (the standard policy
    // allows retries without end, whose pauses would add up to forever).
    for (int attempt = 1; attempt <= Math.min(policy.maxRetries(), MAX_COUNTED_RETRIES); attempt++) {
      budget = Math.min(FOREVER, budget + policy.delayBefore(attempt).toNanos());
    }
    boolean loaded;
    try {
      loaded = sync.awaitSynced(System.nanoTime() + budget, false);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BatonInterruptedException("Interrupted while loading " + clientPath, e);
    }
    Optional<RuntimeException> failure = sync.failure.failure();
    if (failure.isPresent()) {
      throw failure.get();
    }
    synchronized (SHARED) {
      if (closed) {
        throw new IllegalStateException("The cache of " + clientPath + " was closed while loading");
      }
    }
    if (!loaded) {
      throw new ConnectionException("Could not load " + clientPath + " from ZooKeeper at "
          + session.settings().connectString() + " (" + session.state() + "); the retry policy gave up");
    }
  }

  /** Whether the copy may be out of date: not loaded since the last reconnection, stopped, or closed. */
  final boolean isStale() {
    return !sync.isSynced();
  }

  /** Whether a refusal retrying cannot cure stopped the copy. */
  final boolean isFailed() {
    return sync.failure.hasFailed();
  }

  final void subscribe(Consumer<T> subscriber) {
    subscribers.add(subscriber);
  }

  final void unsubscribe(Consumer<T> subscriber) {
    subscribers.remove(subscriber);
  }

  /** The copy changed: make the new snapshot. Under the sync's lock. */
  protected abstract void update();

  /** The snapshot now. */
  protected abstract T snapshot();

  @Override
  public final void changed(List<NodeTree.Change<N>> changes) {
    update();
    unpublished = true;
    if (sync.isSynced()) {
      publish();
    }
  }

  @Override
  public final void synced() {
    // Before a waiter of awaitLoaded wakes (it needs this lock): a listener added once the load
    // is seen must not hear of the load itself.
    publish();
  }

  private void publish() {
    if (!unpublished) {
      return;
    }
    unpublished = false;
    T snapshot = snapshot();
    for (Consumer<T> subscriber : subscribers) {
      try {
        subscriber.accept(snapshot);
      } catch (RuntimeException e) {
        log.error("A subscriber of {} failed", serverPath, e);
      }
    }
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "[" + serverPath + (isStale() ? ", stale" : "") + "]";
  }
}
