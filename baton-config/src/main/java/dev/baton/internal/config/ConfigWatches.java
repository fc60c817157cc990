package dev.baton.internal.config;

import dev.baton.internal.session.PathWatches;
import dev.baton.internal.session.Session;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.zookeeper.Watcher;

/**
 * The persistent recursive watches config centers set, counted per session and path. The server
 * keeps one such watch per session and path however many watcher objects the client registered,
 * and removing one watcher object only removes it from the client (the server is merely asked
 * whether it has a watch there). So the last config center of a session on a path removes every
 * persistent recursive watch of the session there, on the server too, and the others only their
 * own watcher. As in {@link PathWatches}, never with local=true, which could hide a broken link
 * from the session.
 */
final class ConfigWatches {
  private static final Map<Key, Integer> WATCHING = new ConcurrentHashMap<>();

  private record Key(Session.Handle handle, String serverPath) {}

  private ConfigWatches() {}

  /** One more config center of {@code handle}'s session watches {@code serverPath}. */
  static void started(Session.Handle handle, String serverPath) {
    WATCHING.merge(new Key(handle, serverPath), 1, Integer::sum);
  }

  /** One stopped watching; returns whether it was the last of its session on the path. */
  static boolean stopped(Session.Handle handle, String serverPath) {
    return WATCHING.computeIfPresent(new Key(handle, serverPath), (key, count) -> count == 1 ? null : count - 1)
        == null;
  }

  /** Whether any config center of {@code handle}'s session watches {@code serverPath}. */
  static boolean watched(Session.Handle handle, String serverPath) {
    return WATCHING.containsKey(new Key(handle, serverPath));
  }

  /**
   * Removes {@code watcher} (from the server too when {@code fromServer}); {@code done} is told
   * whether the request succeeded.
   */
  static void remove(Session.Handle handle, String serverPath, Watcher watcher, boolean fromServer,
      java.util.function.Consumer<Boolean> done) {
    try {
      if (fromServer) {
        handle.zk().removeAllWatches(serverPath, Watcher.WatcherType.PersistentRecursive, false,
            (rc, path, ctx) -> done.accept(succeeded(rc)), null);
      } else {
        handle.zk().removeWatches(serverPath, watcher, Watcher.WatcherType.PersistentRecursive, false,
            (rc, path, ctx) -> done.accept(succeeded(rc)), null);
      }
    } catch (RuntimeException e) {
      // The handle is closing: its watches go with its session.
      done.accept(true);
    }
  }

  private static boolean succeeded(int rc) {
    org.apache.zookeeper.KeeperException.Code code = org.apache.zookeeper.KeeperException.Code.get(rc);
    // NOWATCHER: nothing left to remove (already gone, e.g. with an earlier connection).
    return code == org.apache.zookeeper.KeeperException.Code.OK
        || code == org.apache.zookeeper.KeeperException.Code.NOWATCHER;
  }
}
