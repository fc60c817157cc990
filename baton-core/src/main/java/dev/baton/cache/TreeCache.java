package dev.baton.cache;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.concurrent.Executor;

/**
 * A local copy of a node and every node below it, kept current by one persistent recursive watch
 * (ZooKeeper 3.6+), as Curator's {@code CuratorCache}: reads never send a request, and listeners
 * hear of nodes added, changed and removed. Made by {@code baton.cache(path)}; the path need not
 * exist. Thread-safe.
 *
 * <pre>{@code
 * try (TreeCache cache = baton.cache("/services")) {
 *   cache.addListener(new CacheListener() {
 *     public void added(CachedNode node) { route(node.path(), node.dataAsString()); }
 *     public void removed(CachedNode node) { unroute(node.path()); }
 *   }, executor);
 *   cache.start().awaitInitialized(Duration.ofSeconds(5));
 *   Optional<CachedNode> a = cache.get("/services/a");          // local: no request
 * }
 * }</pre>
 *
 * <h2>Cost</h2>
 * One load (a listing per node with children, a read per node, pipelined), then one read per
 * change of a node; deletions cost nothing. Several caches of one client on the same path share
 * the ensemble's watch.
 *
 * <h2>Connection loss, session expiry and timeouts</h2>
 * While the connection is down the copy keeps what it last saw, and {@link #isSynced()} is
 * false. ZooKeeper does not replay what changed meanwhile, so after every reconnection (and on the
 * client's new session after an expiry, with the watch set again first) the copy loads the path
 * again, and listeners hear exactly the differences: nothing missed, nothing told twice. Reads
 * never block and never fail for lack of a connection. The cache has no timeout of its own; only
 * {@link #awaitInitialized(Duration)} waits, as long as it is told.
 */
public interface TreeCache extends AutoCloseable {

  /** The client path of the cache's root node. */
  String path();

  /**
   * Sets the watch and loads the tree; returns at once (see {@link #awaitInitialized}). Listeners
   * added before hear every node found as {@link CacheListener#added}, then {@link
   * CacheListener#initialized()}; those added later hear only the changes after. If the client is
   * not connected, the load starts when it connects.
   *
   * @throws IllegalStateException if started before or closed
   */
  TreeCache start();

  /**
   * Waits until the first load is complete.
   *
   * @return false if {@code timeout} passed first (the connection may be down: the load goes on)
   * @throws IllegalArgumentException if {@code timeout} is negative
   * @throws IllegalStateException if not started
   * @throws dev.baton.BatonInterruptedException if interrupted (the interrupt flag is set again)
   * @throws RuntimeException the {@link #failure()} if the copy stopped following the ensemble
   *     (a {@link dev.baton.NotAuthorizedException} naming the path, say), at once
   */
  boolean awaitInitialized(Duration timeout);

  /**
   * Whether the copy equals the ensemble as of the last event: loaded on the current connection,
   * which is up. False from a disconnection until the reload after it is complete.
   */
  boolean isSynced();

  /**
   * Why the copy stopped following the ensemble, if it did: an error retrying cannot cure, such
   * as the path's ACL refusing this client's identity ({@link dev.baton.NotAuthorizedException}),
   * or the client closed. The copy keeps what it had; {@link #awaitInitialized} throws this error.
   */
  java.util.Optional<RuntimeException> failure();

  /** The node at {@code path} (a client path at or under {@link #path()}), if the copy holds it; no request. */
  Optional<CachedNode> get(String path);

  /** The children of {@code path} the copy holds, by name, sorted; empty if none or unknown; no request. */
  SortedMap<String, CachedNode> children(String path);

  /** Every node the copy holds, by client path, sorted; a snapshot, no request. */
  Map<String, CachedNode> nodes();

  /** How many nodes the copy holds. */
  int size();

  /** Calls {@code listener} on the client's event executor; see {@link CacheListener}. */
  void addListener(CacheListener listener);

  void addListener(CacheListener listener, Executor executor);

  void removeListener(CacheListener listener);

  /**
   * Stops following and removes the watch from the ensemble (at the next reconnection if the
   * connection is down; the watch goes with the session in any case). Listeners hear nothing more.
   * Idempotent.
   */
  @Override
  void close();
}
