package dev.baton.cache;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executor;

/**
 * A local copy of one node, kept current by a persistent (not recursive) watch: the node's
 * children are not watched, and cost nothing. The node may be absent, then appear. Made by
 * {@code baton.nodeCache(path)}; see {@link TreeCache} for the start, the listeners, connection
 * loss and closing, which are the same.
 */
public interface NodeCache extends AutoCloseable {

  /** The node's client path. */
  String path();

  /**
   * Sets the watch and loads the node; returns at once. Listeners added before hear the node as
   * {@link CacheListener#added} if it exists, then {@link CacheListener#initialized()}.
   *
   * @throws IllegalStateException if started before or closed
   */
  NodeCache start();

  /** See {@link TreeCache#awaitInitialized(Duration)}. */
  boolean awaitInitialized(Duration timeout);

  /** See {@link TreeCache#isSynced()}. */
  boolean isSynced();

  /**
   * Why the copy stopped following the ensemble, if it did: an error retrying cannot cure, such
   * as the path's ACL refusing this client's identity ({@link dev.baton.NotAuthorizedException}),
   * or the client closed. The copy keeps what it had; {@link #awaitInitialized} throws this error.
   */
  java.util.Optional<RuntimeException> failure();

  /** The node as last seen, empty if it is absent (or not loaded yet); no request. */
  Optional<CachedNode> current();

  /** Calls {@code listener} on the client's event executor. */
  void addListener(CacheListener listener);

  void addListener(CacheListener listener, Executor executor);

  void removeListener(CacheListener listener);

  /** Stops following and removes the watch from the ensemble. Idempotent. */
  @Override
  void close();
}
