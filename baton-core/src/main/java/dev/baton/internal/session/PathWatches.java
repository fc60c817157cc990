package dev.baton.internal.session;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.zookeeper.Watcher;

/**
 * The data watches ({@code exists} or {@code getData}) that waits of barriers and queues set on a
 * path, counted per session and path. The server keeps one such watch per session and path
 * however many watchers the client registered, and only {@code removeAllWatches} removes it there
 * (removing one watcher is checked by the server but done only in the client). So the watch is
 * removed from the server when the last wait of its session stops, and no wait's watch is
 * removed from under it.
 */
public final class PathWatches {
  private static final Map<Key, Integer> WAITING = new ConcurrentHashMap<>();

  private record Key(Session.Handle handle, String serverPath) {}

  private PathWatches() {}

  /** One more object of {@code handle}'s session waits for {@code serverPath}. */
  public static void started(Session.Handle handle, String serverPath) {
    WAITING.merge(new Key(handle, serverPath), 1, Integer::sum);
  }

  /**
   * One object stopped waiting; if it was the last of a live session and {@code removeWatch},
   * the watch is removed from the server. Pass {@code false} when the watch fired (it is gone).
   */
  public static void stopped(Session session, Session.Handle handle, String serverPath, boolean removeWatch) {
    if (stopped(handle, serverPath) && removeWatch && handle == session.handle() && !handle.isExpired()
        && !session.isClosed()) {
      removeFromServer(handle, serverPath);
    }
  }

  /** One object stopped waiting; returns whether it was the last of its session on the path. */
  public static boolean stopped(Session.Handle handle, String serverPath) {
    return WAITING.computeIfPresent(new Key(handle, serverPath), (key, count) -> count == 1 ? null : count - 1) == null;
  }

  /**
   * Removes every data watch of the session on the path, on the server too.
   *
   * <p>Never with local=true: when such a removal fails because the link just broke, ZooKeeper's
   * client queues a "watch removed" event in the Disconnected state, and then drops the real
   * Disconnected session event as a repeat of it. The session would never hear that its link
   * broke, so a lease would stay HELD while the server expires it and another client takes the
   * lock. A removal that fails leaves the watch registered; it may be set again on reconnect and
   * fire later, which every waiter ignores once it has stopped.
   */
  public static void removeFromServer(Session.Handle handle, String serverPath) {
    handle.zk().removeAllWatches(serverPath, Watcher.WatcherType.Data, false, (rc, path, ctx) -> { }, null);
  }
}
