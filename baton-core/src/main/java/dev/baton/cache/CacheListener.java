package dev.baton.cache;

/**
 * Told of the changes of a {@link TreeCache} or {@link NodeCache} after the local copy changed,
 * one call at a time and in the order of the changes, on the executor given with the listener.
 * Override the methods of the events you need.
 *
 * <p>Every event is a real change of the ensemble's nodes as the copy saw it: after a
 * reconnection or a session expiry the copy is loaded again and the listener hears only what
 * differs from what it was told before (a node changed meanwhile, added, or removed), never a node
 * that merely was read again. ZooKeeper's events carry no data, so a node is read once it is
 * heard of: several writes in quick succession (or while the client was disconnected) may come as
 * one change, from the last value told to the current one, and a node created and deleted again
 * before the cache could read it is not heard of at all. Curator's {@code CuratorCache} behaves
 * the same way; the copy always ends equal to the ensemble.
 */
public interface CacheListener {

  /** {@code node} appeared (or was found by the first load, if the listener was added before {@code start()}). */
  default void added(CachedNode node) {}

  /** A node was written: {@code before} is what the listener last heard of it, {@code after} what it holds now. */
  default void changed(CachedNode before, CachedNode after) {}

  /** {@code node} (as last heard) is gone. */
  default void removed(CachedNode node) {}

  /** The first load is complete: the events of every node found by it came before this call. Called once. */
  default void initialized() {}
}
