package dev.baton.internal.queue;

import dev.baton.internal.session.Nodes;
import dev.baton.internal.session.Session;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;

/**
 * Gives an item back after a failed delivery, counting the failure with the item: one {@code
 * multi} on the claim's session sets the item's data again (same bytes, conditional on the version
 * read when it was claimed, so its version, the count, grows by exactly one) and deletes the claim.
 * Curator reads the item as before: only the node's version changes. Whether this client may take
 * the item again soon is not decided here ({@link ItemTakers#holdBack}).
 */
final class Redelivery {
  private Redelivery() {}

  static void giveBackCounted(Session session, ItemTakers.Claimed claimed, String serverItemPath,
      String serverClaimPath) {
    List<Op> ops = List.of(Op.setData(serverItemPath, claimed.data(), claimed.version()),
        Op.delete(serverClaimPath, -1));
    attempt(session, claimed, ops, serverClaimPath, 1);
  }

  private static void attempt(Session session, ItemTakers.Claimed claimed, List<Op> ops, String serverClaimPath,
      int attempt) {
    Session.Handle owner = claimed.handle();
    if (owner != session.handle() || owner.isExpired() || session.isClosed()) {
      return; // the claim went with its session: the item is free, and this delivery not counted
    }
    owner.zk().multi(ops, (rc, path, ctx, results) -> {
      Code code = Code.get(rc);
      if (code == Code.CONNECTIONLOSS || code == Code.OPERATIONTIMEOUT) {
        long delay = session.settings().retryPolicy().delayBefore(Math.min(attempt, 10)).toNanos();
        session.schedule(() -> attempt(session, claimed, ops, serverClaimPath, attempt + 1),
            Math.max(delay, TimeUnit.MILLISECONDS.toNanos(1)));
        return;
      }
      if (code != Code.OK && code != Code.SESSIONEXPIRED) {
        // Changed or removed by a consumer that does not claim (Curator without a lock path), or
        // the item's ACL refuses the write: give it back uncounted rather than keep it.
        Nodes.deleteInBackground(session, owner, serverClaimPath);
      }
    }, null);
  }
}
