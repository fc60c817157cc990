package dev.baton.internal.session;

import dev.baton.AclProvider;
import dev.baton.ZkPaths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Small asynchronous operations on nodes shared by the recipes. */
public final class Nodes {
  private static final Logger log = LoggerFactory.getLogger(Nodes.class);
  private static final byte[] EMPTY = new byte[0];

  private Nodes() {}

  /**
   * Creates the missing ancestors of {@code serverPath} as container nodes (the ensemble removes
   * a container once its last child is gone, so lock paths leave nothing behind), each with the
   * ACL the client's {@code AclProvider} gives its path. Usually only the parent is missing (a
   * new lock path under an existing folder), so that one write is tried first; only if its own
   * parent is missing too are all ancestors created, pipelined: the session answers them in
   * order, so the last reply means all are done.
   * Completes with a {@link KeeperException} on anything but success or "exists".
   */
  public static CompletableFuture<Void> createParents(Session session, String serverPath) {
    ZooKeeper zk = session.handle().zk();
    List<String> ancestors = new ArrayList<>();
    for (int slash = serverPath.indexOf('/', 1); slash > 0; slash = serverPath.indexOf('/', slash + 1)) {
      ancestors.add(serverPath.substring(0, slash));
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    if (ancestors.isEmpty()) {
      done.complete(null);
      return done;
    }
    if (ancestors.size() == 1) {
      createChain(session, zk, ancestors, done);
      return done;
    }
    String parent = ancestors.get(ancestors.size() - 1);
    zk.create(parent, EMPTY, session.settings().aclFor(parent), CreateMode.CONTAINER, (rc, path, ctx, name) -> {
      KeeperException.Code code = KeeperException.Code.get(rc);
      if (code == KeeperException.Code.OK || code == KeeperException.Code.NODEEXISTS) {
        done.complete(null);
      } else if (code == KeeperException.Code.NONODE) {
        createChain(session, zk, ancestors, done);
      } else {
        done.completeExceptionally(KeeperException.create(code, path));
      }
    }, null);
    return done;
  }

  /**
   * {@link #createParents} for callers inside a retried blocking call: a ZooKeeper refusal comes
   * back as its {@link KeeperException} (for the retry loop to judge), anything else translated
   * with {@code path} (as the user gave it) in the message.
   */
  public static void createParentsAndWait(Session session, String serverPath, String path)
      throws KeeperException, InterruptedException {
    try {
      createParents(session, serverPath).get();
    } catch (java.util.concurrent.ExecutionException e) {
      if (e.getCause() instanceof KeeperException keeper) {
        throw keeper;
      }
      throw Errors.translate(e, path);
    }
  }

  private static void createChain(Session session, ZooKeeper zk, List<String> ancestors, CompletableFuture<Void> done) {
    KeeperException.Code[] firstError = new KeeperException.Code[1];
    for (int i = 0; i < ancestors.size(); i++) {
      boolean last = i == ancestors.size() - 1;
      zk.create(ancestors.get(i), EMPTY, session.settings().aclFor(ancestors.get(i)), CreateMode.CONTAINER,
          (rc, path, ctx, name) -> {
            KeeperException.Code code = KeeperException.Code.get(rc);
            if (code != KeeperException.Code.OK && code != KeeperException.Code.NODEEXISTS
                && firstError[0] == null) {
              firstError[0] = code;
              done.completeExceptionally(KeeperException.create(code, path));
            }
            if (last) {
              done.complete(null);
            }
          }, null);
    }
  }

  /** Sends a delete and retries it on connection loss until done, the node is gone, or the session is. */
  public static void deleteInBackground(Session session, Session.Handle owner, String serverPath) {
    deleteAttempt(session, owner, serverPath, 1);
  }

  private static void deleteAttempt(Session session, Session.Handle owner, String serverPath, int attempt) {
    if (owner != session.handle() || owner.isExpired() || session.isClosed()) {
      // The node belonged to a session that is gone: the ensemble removed it with the session.
      return;
    }
    owner.zk().delete(serverPath, -1, (rc, path, ctx) -> {
      KeeperException.Code code = KeeperException.Code.get(rc);
      if (code == KeeperException.Code.CONNECTIONLOSS || code == KeeperException.Code.OPERATIONTIMEOUT) {
        long delay = session.settings().retryPolicy().delayBefore(Math.min(attempt, 10)).toNanos();
        session.schedule(() -> deleteAttempt(session, owner, serverPath, attempt + 1), Math.max(delay, 1_000_000));
      } else if (code == KeeperException.Code.NOAUTH) {
        // The parent's ACL refuses this identity DELETE: the node stays until its session ends.
        log.warn("Cannot delete {}: the ACL of {} refuses this client's identity DELETE; the node"
            + " stays until the session ends", serverPath, ZkPaths.parent(serverPath));
      }
    }, null);
  }
}
