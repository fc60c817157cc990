package dev.baton.internal.cache;

import dev.baton.internal.session.PathWatches;
import dev.baton.internal.session.Session;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher;

/**
 * The persistent watches caches set, counted per session, path and kind. The server keeps one
 * such watch per session, path and kind however many watcher objects the client registered, and
 * removing one watcher object only removes it from the client (the server is merely asked whether
 * it has a watch there). So the last cache of a session on a path removes every watch of that
 * kind the session has there, on the server too, and the others only their own watcher. As in
 * {@link PathWatches}, never with local=true, which could hide a broken link from the session.
 */
final class TreeWatches {
  private static final Map<Key, Integer> WATCHING = new ConcurrentHashMap<>();

  private record Key(Session.Handle handle, String serverPath, Watcher.WatcherType type) {}

  private TreeWatches() {}

  /** One more cache of {@code handle}'s session watches {@code serverPath}. */
  static void started(Session.Handle handle, String serverPath, Watcher.WatcherType type) {
    WATCHING.merge(new Key(handle, serverPath, type), 1, Integer::sum);
  }

  /** One stopped watching; returns whether it was the last of its session on the path. */
  static boolean stopped(Session.Handle handle, String serverPath, Watcher.WatcherType type) {
    return WATCHING.computeIfPresent(new Key(handle, serverPath, type),
        (key, count) -> count == 1 ? null : count - 1) == null;
  }

  /** Whether any cache of {@code handle}'s session watches {@code serverPath}. */
  static boolean watched(Session.Handle handle, String serverPath, Watcher.WatcherType type) {
    return WATCHING.containsKey(new Key(handle, serverPath, type));
  }

  /**
   * Removes {@code watcher} (from the server too when {@code fromServer}); {@code done} is told
   * whether the request succeeded.
   */
  static void remove(Session.Handle handle, String serverPath, Watcher.WatcherType type, Watcher watcher,
      boolean fromServer, Consumer<Boolean> done) {
    try {
      if (fromServer) {
        handle.zk().removeAllWatches(serverPath, type, false, (rc, path, ctx) -> done.accept(succeeded(rc)), null);
      } else {
        handle.zk().removeWatches(serverPath, watcher, type, false, (rc, path, ctx) -> done.accept(succeeded(rc)),
            null);
      }
    } catch (RuntimeException e) {
      // The handle is closing: its watches go with its session.
      done.accept(true);
    }
  }

  private static boolean succeeded(int rc) {
    Code code = Code.get(rc);
    // NOWATCHER: nothing left to remove (already gone, e.g. with an earlier connection).
    return code == Code.OK || code == Code.NOWATCHER;
  }
}
