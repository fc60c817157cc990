package dev.baton.internal.config;

import dev.baton.ZkPaths;
import dev.baton.internal.cache.TreeSync;
import dev.baton.internal.session.Session;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.CreateOptions;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

/**
 * The single requests a config center's writes are made of, and what a write needs to know of
 * its config center: the session, the prefix, the packet limit, whether it is still open.
 *
 * <p>Each reply's fact is applied to the local copy in its callback, on the handle's event
 * thread, before the caller sees the reply: in order with the watch's events, and in the copy by
 * the time the write returns.
 */
final class ConfigRequests {
  private final Session session;
  private final TreeSync<ConfigTree.Node> sync;
  private final String prefix;
  private final int maxPacket;
  private final Runnable checkUsable;
  private final ConfigTree tree;
  /** Null without history. */
  private final ConfigHistory history;

  /**
   * {@code checkUsable} throws if the config center or its client is closed; {@code history} is
   * null when writes keep none.
   */
  ConfigRequests(Session session, TreeSync<ConfigTree.Node> sync, ConfigTree tree, ConfigHistory history,
      String prefix, int maxPacket, Runnable checkUsable) {
    this.session = session;
    this.sync = sync;
    this.tree = tree;
    this.history = history;
    this.prefix = prefix;
    this.maxPacket = maxPacket;
    this.checkUsable = checkUsable;
  }

  Session session() {
    return session;
  }

  String prefix() {
    return prefix;
  }

  int maxPacket() {
    return maxPacket;
  }

  /** Throws if the config center or its client is closed. */
  void checkUsable() {
    checkUsable.run();
  }

  /** The key's path as the application sees it (without the client's chroot). */
  String clientPath(String key) {
    return ZkPaths.join(prefix, key);
  }

  /** The key's path on the server. */
  String serverPath(String key) {
    return sync.pathOf(key);
  }

  /** The answer to one request: ZooKeeper's code, and the node's stat where the request gives one. */
  record Reply(Code code, Stat stat, ConfigTree.Node node) {}

  /** One request on a handle. */
  @FunctionalInterface
  interface Request {
    CompletableFuture<Reply> send(Session.Handle handle);
  }

  CompletableFuture<Reply> create(Session.Handle handle, String key, byte[] data, List<ACL> acl, String operation) {
    if (history != null) {
      return ownWrite(handle, key, answered -> withHistory(handle, key, operation, 0, data, -1,
          Op.create(sync.pathOf(key), data, CreateOptions.newBuilder(acl, CreateMode.PERSISTENT).build()),
          answered));
    }
    return ownWrite(handle, key, answered -> handle.zk().create(sync.pathOf(key), data, acl, CreateMode.PERSISTENT,
        (rc, path, ctx, name, stat) -> {
          if (Code.get(rc) == Code.OK) {
            sync.nodeSeen(handle, key, data, stat);
          }
          answered.accept(rc, stat);
        }, null));
  }

  CompletableFuture<Reply> setData(Session.Handle handle, String key, byte[] data, int version, String operation) {
    if (history != null) {
      return ownWrite(handle, key, answered -> withHistory(handle, key, operation, version + 1, data, version,
          Op.setData(sync.pathOf(key), data, version), answered));
    }
    return ownWrite(handle, key, answered -> handle.zk().setData(sync.pathOf(key), data, version,
        (rc, path, ctx, stat) -> {
          Code code = Code.get(rc);
          if (code == Code.OK) {
            sync.nodeSeen(handle, key, data, stat);
          } else if (code == Code.NONODE) {
            sync.nodeAbsent(handle, key);
          }
          answered.accept(rc, stat);
        }, null));
  }

  /**
   * Sends {@code write} and its revision in one transaction (the history's folders created just
   * before, pipelined, unless known to exist), and answers with the write's own code and stat, as
   * the plain request would. A failure of the revision alone (its folder removed meanwhile) is
   * answered as a conflict the write's loop retries, which then creates the folder again.
   */
  private void withHistory(Session.Handle handle, String key, String operation, int version, byte[] data,
      int previousVersion, Op write, BiConsumer<Integer, Stat> answered) {
    ConfigTree.Node known = tree.node(key);
    String previousValue = known != null && known.version() == previousVersion ? known.value() : null;
    history.prepare(handle, key);
    Op revision = history.revision(key, operation, version, data == null ? null : new String(data, java.nio.charset.StandardCharsets.UTF_8),
        previousVersion, previousValue);
    handle.zk().multi(List.of(write, revision), (rc, path, ctx, results) -> {
      Code code = Code.get(rc);
      Stat stat = null;
      if (code == Code.OK) {
        stat = results.get(0) instanceof OpResult.SetDataResult set ? set.getStat()
            : results.get(0) instanceof OpResult.CreateResult created ? created.getStat() : null;
        if (stat != null) {
          sync.nodeSeen(handle, key, data, stat);
        } else {
          sync.nodeAbsent(handle, key);
        }
        history.prepared(key);
        history.trim(handle, key);
      } else if (results != null && !results.isEmpty() && results.get(0) instanceof OpResult.ErrorResult first) {
        Code own = Code.get(first.getErr());
        if (own == Code.OK || own == Code.RUNTIMEINCONSISTENCY) {
          // The revision failed, not the write: its folder went. Answered as a conflict the
          // write's loop retries (reading the key again), and the retry creates the folder.
          history.forget(key);
          code = write.getType() == org.apache.zookeeper.ZooDefs.OpCode.create2 ? Code.NONODE : Code.BADVERSION;
        } else {
          code = own;
          if (code == Code.NONODE && write.getType() != org.apache.zookeeper.ZooDefs.OpCode.create2) {
            sync.nodeAbsent(handle, key);
          }
        }
      }
      answered.accept(code.intValue(), stat);
    }, null);
  }

  /**
   * Sends a write of {@code key} with {@link TreeSync#ownWriteStarted} before it and {@link
   * TreeSync#ownWriteEnded} after its reply (or its failure to be sent), so that the watch's
   * event of the write sends no read. {@code send} sends the request; its callback applies the
   * reply's fact to the copy, then calls {@code answered} with the reply's code and stat.
   */
  private CompletableFuture<Reply> ownWrite(Session.Handle handle, String key,
      Consumer<BiConsumer<Integer, Stat>> send) {
    CompletableFuture<Reply> reply = new CompletableFuture<>();
    sync.ownWriteStarted(key);
    try {
      send.accept((rc, stat) -> {
        Code code = Code.get(rc);
        sync.ownWriteEnded(handle, key, code == Code.OK ? stat : null);
        reply.complete(new Reply(code, stat, null));
      });
    } catch (RuntimeException e) {
      sync.ownWriteEnded(handle, key, null);
      throw e;
    }
    return reply;
  }

  CompletableFuture<Reply> delete(Session.Handle handle, String key, int version, String operation) {
    if (history != null) {
      return ownWrite(handle, key, answered -> withHistory(handle, key, operation, -1, null, version,
          Op.delete(sync.pathOf(key), version), answered));
    }
    CompletableFuture<Reply> reply = new CompletableFuture<>();
    handle.zk().delete(sync.pathOf(key), version, (rc, path, ctx) -> {
      Code code = Code.get(rc);
      if (code == Code.OK || code == Code.NONODE) {
        sync.nodeAbsent(handle, key);
      }
      reply.complete(new Reply(code, null, null));
    }, null);
    return reply;
  }

  CompletableFuture<Reply> getData(Session.Handle handle, String key) {
    CompletableFuture<Reply> reply = new CompletableFuture<>();
    handle.zk().getData(sync.pathOf(key), false, (rc, path, ctx, data, stat) -> {
      Code code = Code.get(rc);
      ConfigTree.Node node = null;
      if (code == Code.OK) {
        sync.nodeSeen(handle, key, data, stat);
        node = ConfigTree.Node.of(data, stat);
      } else if (code == Code.NONODE) {
        sync.nodeAbsent(handle, key);
      }
      reply.complete(new Reply(code, stat, node));
    }, null);
    return reply;
  }

  /** Creates the missing folders of {@code key}: container nodes without data. */
  CompletableFuture<Reply> createFolders(Session.Handle handle, String key) {
    String serverPath = sync.pathOf(key);
    List<String> ancestors = new ArrayList<>();
    for (int slash = serverPath.indexOf('/', 1); slash > 0; slash = serverPath.indexOf('/', slash + 1)) {
      ancestors.add(serverPath.substring(0, slash));
    }
    CompletableFuture<Reply> done = new CompletableFuture<>();
    Code[] firstError = new Code[1];
    // Pipelined: the session answers in order, so the last reply means all are done.
    for (int i = 0; i < ancestors.size(); i++) {
      boolean last = i == ancestors.size() - 1;
      String folder = ancestors.get(i);
      handle.zk().create(folder, null, session.settings().aclFor(folder), CreateMode.CONTAINER,
          (rc, path, ctx, name) -> {
            Code code = Code.get(rc);
            if (code != Code.OK && code != Code.NODEEXISTS && firstError[0] == null) {
              firstError[0] = code;
            }
            if (last) {
              done.complete(new Reply(firstError[0] == null ? Code.OK : firstError[0], null, null));
            }
          }, null);
    }
    if (ancestors.isEmpty()) {
      done.complete(new Reply(Code.OK, null, null));
    }
    return done;
  }
}
