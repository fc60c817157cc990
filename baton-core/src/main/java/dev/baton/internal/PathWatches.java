package dev.baton.internal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.zookeeper.Watcher;

/**
 * The {@code exists} watches that queue objects set to wait for a missing path, counted per
 * session and path. The server keeps one such watch per session and path however many watchers
 * the client registered, and only {@code removeAllWatches} removes it there (removing one
 * watcher is checked by the server but done only in the client). So the watch is removed from
 * the server when the last object of its session stops waiting, and no object's watch is
 * removed from under it.
 */
final class PathWatches {
  private static final Map<Key, Integer> WAITING = new ConcurrentHashMap<>();

  private record Key(Session.Handle handle, String serverPath) {}

  private PathWatches() {}

  /** One more object of {@code handle}'s session waits for {@code serverPath}. */
  static void started(Session.Handle handle, String serverPath) {
    WAITING.merge(new Key(handle, serverPath), 1, Integer::sum);
  }

  /**
   * One object stopped waiting; if it was the last of a live session and {@code removeWatch},
   * the watch is removed from the server. Pass {@code false} when the watch fired (it is gone).
   */
  static void stopped(Session session, Session.Handle handle, String serverPath, boolean removeWatch) {
    Integer left = WAITING.computeIfPresent(new Key(handle, serverPath), (key, count) -> count == 1 ? null : count - 1);
    if (left == null && removeWatch && handle == session.handle() && !handle.isExpired() && !session.isClosed()) {
      handle.zk().removeAllWatches(serverPath, Watcher.WatcherType.Data, true, (rc, path, ctx) -> { }, null);
    }
  }
}
