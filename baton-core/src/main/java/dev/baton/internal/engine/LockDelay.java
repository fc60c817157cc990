package dev.baton.internal.engine;

import dev.baton.ZkPaths;
import dev.baton.internal.session.Nodes;
import dev.baton.internal.session.Session;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;

/**
 * Lock-delay, as in Chubby: after a holder's lease ends without a release (its session expired,
 * its process stalled past the session timeout), the next holder waits a configured time before
 * it is told it holds the lock, so writes the old holder still had in flight land or fail first.
 *
 * <p>How the next holder tells a release from a loss: the lock path's own data records the
 * holder. A holder writes {@code held:<node>} there as it is granted (sent with the read of the
 * previous record, so it costs no extra round trip of its own), and releases with one {@code
 * multi} that writes {@code released:<node>} and deletes its node. A grantee that reads {@code
 * held:<another node>} knows that holder's node went without a release. Clients on the path
 * that do not use lock-delay (or Curator) write no record: their losses go unseen, and the
 * record they leave in place (a {@code released:}) lets the next holder in at once.
 *
 * <p>The record survives while the lock path does. A lock path is a container node, which the
 * ensemble removes some time after its last child goes (its reaper runs every minute by default):
 * a client that first queues after the path was emptied and removed finds no record and is not
 * held back. Waiters queued when the holder was lost, and clients arriving while the path still
 * stands, are.
 */
public final class LockDelay {
  private static final String HELD = "held:";
  private static final String RELEASED = "released:";

  private LockDelay() {}

  static byte[] held(String node) {
    return (HELD + node).getBytes(StandardCharsets.UTF_8);
  }

  /** Whether the record is our own claim: an earlier claim of ours was applied, its reply lost. */
  static boolean isOwnClaim(byte[] record, String ourNode) {
    return record != null && new String(record, StandardCharsets.UTF_8).equals(HELD + ourNode);
  }

  /** Whether the record read before our own claim names another holder that never released. */
  static boolean previousHolderWasLost(byte[] record, String ourNode) {
    if (record == null) {
      return false;
    }
    String text = new String(record, StandardCharsets.UTF_8);
    return text.startsWith(HELD) && !text.substring(HELD.length()).equals(ourNode);
  }

  /**
   * Releases a node voluntarily: records the release and deletes the node in one transaction,
   * retried on connection loss until done, the node is gone, or its session is.
   */
  public static void releaseInBackground(Session session, Session.Handle owner, String serverNodePath) {
    attempt(session, owner, serverNodePath, 1);
  }

  private static void attempt(Session session, Session.Handle owner, String serverNodePath, int attempt) {
    if (owner != session.handle() || owner.isExpired() || session.isClosed()) {
      return; // the node went with its session
    }
    String lockPath = serverNodePath.substring(0, serverNodePath.lastIndexOf('/'));
    byte[] record = (RELEASED + ZkPaths.name(serverNodePath)).getBytes(StandardCharsets.UTF_8);
    owner.zk().multi(List.of(Op.setData(lockPath, record, -1), Op.delete(serverNodePath, -1)),
        (rc, path, ctx, results) -> {
          Code code = Code.get(rc);
          if (code == Code.CONNECTIONLOSS || code == Code.OPERATIONTIMEOUT) {
            long delay = session.settings().retryPolicy().delayBefore(Math.min(attempt, 10)).toNanos();
            session.schedule(() -> attempt(session, owner, serverNodePath, attempt + 1), Math.max(delay, 1_000_000));
          } else if (code != Code.OK && code != Code.NONODE && code != Code.SESSIONEXPIRED) {
            // The record could not be written (no permission on the lock path, say): release anyway.
            Nodes.deleteInBackground(session, owner, serverNodePath);
          }
        }, null);
  }
}
