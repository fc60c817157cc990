package dev.baton.internal.config;

import dev.baton.ZkPaths;
import dev.baton.internal.cache.TreeSync;
import dev.baton.internal.session.Session;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
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

  /**
   * The answer to one request: ZooKeeper's code, and the node's stat where the request gives one.
   * {@code failed} says which part of a write's transaction failed, when {@code code} is not OK
   * for the write itself but for its revision or its guard.
   */
  record Reply(Code code, Stat stat, ConfigTree.Node node, Part failed) {
    Reply(Code code, Stat stat, ConfigTree.Node node) {
      this(code, stat, node, Part.WRITE);
    }
  }

  /** The parts of a write's transaction. */
  enum Part {
    /** The write of the key itself (also: a plain request, or an answer of none in particular). */
    WRITE,
    /** The key's revision: its history folder is gone (removed by hand); the write can be sent again. */
    REVISION,
    /** The guard sent with the write: what it guards changed. */
    GUARD
  }

  /**
   * An operation the write's transaction must also apply, or fail with: {@code applied} turns
   * its success into a fact of another copy, on the handle's event thread.
   */
  record Guard(Op op, Consumer<Session.Handle> applied) {}

  /** How a write's callback answers: the write's code and stat, and which part failed. */
  @FunctionalInterface
  private interface Answer {
    void accept(int rc, Stat stat, Part failed);
  }

  /** One request on a handle. */
  @FunctionalInterface
  interface Request {
    CompletableFuture<Reply> send(Session.Handle handle);
  }

  CompletableFuture<Reply> create(Session.Handle handle, String key, byte[] data, List<ACL> acl, String operation) {
    if (history != null) {
      return ownWrite(handle, key, answered -> transaction(handle, key, operation, 0, data, -1,
          Op.create(sync.pathOf(key), data, CreateOptions.newBuilder(acl, CreateMode.PERSISTENT).build()),
          null, answered));
    }
    return ownWrite(handle, key, answered -> handle.zk().create(sync.pathOf(key), data, acl, CreateMode.PERSISTENT,
        (rc, path, ctx, name, stat) -> {
          if (Code.get(rc) == Code.OK) {
            sync.nodeSeen(handle, key, data, stat);
          }
          answered.accept(rc, stat, Part.WRITE);
        }, null));
  }

  CompletableFuture<Reply> setData(Session.Handle handle, String key, byte[] data, int version, String operation) {
    return setData(handle, key, data, version, operation, null);
  }

  /**
   * A set of {@code key} at {@code version}, in one transaction with {@code guard} (unless null)
   * and the key's revision (with history): all or nothing.
   */
  CompletableFuture<Reply> setData(Session.Handle handle, String key, byte[] data, int version, String operation,
      Guard guard) {
    if (history != null || guard != null) {
      return ownWrite(handle, key, answered -> transaction(handle, key, operation, version + 1, data, version,
          Op.setData(sync.pathOf(key), data, version), guard, answered));
    }
    return ownWrite(handle, key, answered -> handle.zk().setData(sync.pathOf(key), data, version,
        (rc, path, ctx, stat) -> {
          Code code = Code.get(rc);
          if (code == Code.OK) {
            sync.nodeSeen(handle, key, data, stat);
          } else if (code == Code.NONODE) {
            sync.nodeAbsent(handle, key);
          }
          answered.accept(rc, stat, Part.WRITE);
        }, null));
  }

  /**
   * Sends {@code write} in one transaction with its revision (with history: the history's folders
   * created just before, pipelined, unless known to exist) and {@code guard} (unless null), and
   * answers with the write's own code and stat, as the plain request would, or with the part that
   * failed. A failure of the revision alone (its folder removed meanwhile) is answered as {@link
   * Part#REVISION}: the same write sent again creates the folder first.
   */
  private void transaction(Session.Handle handle, String key, String operation, int version, byte[] data,
      int previousVersion, Op write, Guard guard, Answer answered) {
    List<Op> ops = new ArrayList<>(3);
    ops.add(write);
    int revisionAt = -1;
    if (history != null) {
      ConfigTree.Node known = tree.node(key);
      String previousValue = known != null && known.version() == previousVersion ? known.value() : null;
      history.prepare(handle, key);
      revisionAt = ops.size();
      ops.add(history.revision(key, operation, version,
          data == null ? null : new String(data, java.nio.charset.StandardCharsets.UTF_8), previousVersion,
          previousValue));
    }
    int guardAt = -1;
    if (guard != null) {
      guardAt = ops.size();
      ops.add(guard.op());
    }
    int revisionIndex = revisionAt;
    int guardIndex = guardAt;
    handle.zk().multi(ops, (rc, path, ctx, results) -> {
      Code code = Code.get(rc);
      Stat stat = null;
      Part failed = Part.WRITE;
      if (code == Code.OK) {
        stat = results.get(0) instanceof OpResult.SetDataResult set ? set.getStat()
            : results.get(0) instanceof OpResult.CreateResult created ? created.getStat() : null;
        if (stat != null) {
          sync.nodeSeen(handle, key, data, stat);
        } else {
          sync.nodeAbsent(handle, key);
        }
        if (history != null) {
          history.prepared(key);
          history.trim(handle, key);
        }
        if (guard != null) {
          guard.applied().accept(handle);
        }
      } else if (results != null && !results.isEmpty()) {
        int index = failedIndex(results);
        if (index >= 0) {
          code = Code.get(((OpResult.ErrorResult) results.get(index)).getErr());
        }
        if (index == revisionIndex) {
          history.forget(key); // its folder went: the write sent again creates it
          failed = Part.REVISION;
        } else if (index == guardIndex) {
          failed = Part.GUARD;
        } else if (code == Code.NONODE && write.getType() != org.apache.zookeeper.ZooDefs.OpCode.create2) {
          sync.nodeAbsent(handle, key);
        }
      }
      answered.accept(code.intValue(), stat, failed);
    }, null);
  }

  /** The first operation of a failed transaction with an error of its own; -1 if none says. */
  private static int failedIndex(List<OpResult> results) {
    for (int i = 0; i < results.size(); i++) {
      if (results.get(i) instanceof OpResult.ErrorResult error && error.getErr() != Code.OK.intValue()
          && error.getErr() != Code.RUNTIMEINCONSISTENCY.intValue()) {
        return i;
      }
    }
    return -1;
  }

  /** The answer to a transaction of many keys: ZooKeeper's code, and the key and part that failed (or nulls). */
  record BatchReply(Code code, String failedKey, Part failed) {}

  /**
   * Writes every key of {@code writes} (key to data, in order: a key's ancestors that are keys of
   * the batch come first) in one transaction, all or nothing: each on the version {@code known}
   * gives it (created if none; deleted, after the folders the copy has below it, if its data is
   * null: the keys below it must be deleted by then), after the folders {@code foldersBefore} gives it (folders below a
   * key the batch creates, which cannot be made before it), with its revision if history is
   * kept. The reply's facts go to the copy as a single write's do, so the batch is in the copy
   * when the reply is answered.
   */
  CompletableFuture<BatchReply> writeAll(Session.Handle handle, Map<String, byte[]> writes,
      Map<String, ConfigTree.Node> known, Map<String, List<String>> foldersBefore, String operation) {
    List<Op> ops = new ArrayList<>();
    List<String> keyOf = new ArrayList<>();
    List<Boolean> isRevision = new ArrayList<>();
    java.util.Set<String> foldersDeleted = new java.util.HashSet<>();
    for (Map.Entry<String, byte[]> write : writes.entrySet()) {
      String key = write.getKey();
      for (String folder : foldersBefore.getOrDefault(key, List.of())) {
        String folderPath = sync.pathOf(folder);
        ops.add(Op.create(folderPath, null, session.settings().aclFor(folderPath), CreateMode.CONTAINER));
        keyOf.add(folder);
        isRevision.add(false);
      }
      ConfigTree.Node node = known.get(key);
      String path = sync.pathOf(key);
      if (write.getValue() == null) { // a delete: the folders below the key first, deepest first
        List<String> folders = new ArrayList<>();
        tree.descendants(key).forEach((below, belowNode) -> {
          if (!belowNode.isKey() && foldersDeleted.add(below)) {
            folders.add(below);
          }
        });
        java.util.Collections.reverse(folders);
        for (String folder : folders) {
          ops.add(Op.delete(sync.pathOf(folder), -1));
          keyOf.add(folder);
          isRevision.add(false);
        }
        ops.add(Op.delete(path, node.version()));
        keyOf.add(key);
        isRevision.add(false);
        if (history != null) {
          history.prepare(handle, key);
          ops.add(history.revision(key, operation, -1, null, node.version(), node.value()));
          keyOf.add(key);
          isRevision.add(true);
        }
        continue;
      }
      ops.add(node == null
          ? Op.create(path, write.getValue(), CreateOptions.newBuilder(session.settings().aclFor(path),
              CreateMode.PERSISTENT).build())
          : Op.setData(path, write.getValue(), node.version()));
      keyOf.add(key);
      isRevision.add(false);
      if (history != null) {
        history.prepare(handle, key);
        ops.add(history.revision(key, operation, node == null ? 0 : node.version() + 1,
            new String(write.getValue(), java.nio.charset.StandardCharsets.UTF_8), node == null ? -1 : node.version(),
            node == null ? null : node.value()));
        keyOf.add(key);
        isRevision.add(true);
      }
    }
    CompletableFuture<BatchReply> reply = new CompletableFuture<>();
    writes.keySet().forEach(sync::ownWriteStarted);
    try {
      handle.zk().multi(ops, (rc, path, ctx, results) -> {
        Code code = Code.get(rc);
        Map<String, Stat> written = new HashMap<>();
        BatchReply answer = new BatchReply(code, null, null);
        if (code == Code.OK) {
          for (int i = 0; i < results.size(); i++) {
            Stat stat = results.get(i) instanceof OpResult.SetDataResult set ? set.getStat()
                : !isRevision.get(i) && results.get(i) instanceof OpResult.CreateResult created ? created.getStat()
                : null;
            if (stat != null && writes.containsKey(keyOf.get(i))) { // a folder's create gives no stat
              sync.nodeSeen(handle, keyOf.get(i), writes.get(keyOf.get(i)), stat);
              written.put(keyOf.get(i), stat);
            }
          }
          writes.forEach((key, data) -> {
            if (data == null) {
              sync.nodeAbsent(handle, key);
            }
          });
          if (history != null) {
            writes.keySet().forEach(key -> {
              history.prepared(key);
              history.trim(handle, key);
            });
          }
        } else if (results != null && !results.isEmpty()) {
          int index = failedIndex(results);
          if (index >= 0) {
            String key = keyOf.get(index);
            Code failed = Code.get(((OpResult.ErrorResult) results.get(index)).getErr());
            if (isRevision.get(index)) {
              history.forget(key); // its folder went: the batch sent again creates it
            } else if (failed == Code.NONODE && known.get(key) != null) {
              sync.nodeAbsent(handle, key);
            }
            answer = new BatchReply(failed, key, isRevision.get(index) ? Part.REVISION : Part.WRITE);
          }
        }
        writes.keySet().forEach(key -> sync.ownWriteEnded(handle, key, written.get(key)));
        reply.complete(answer);
      }, null);
    } catch (RuntimeException e) {
      writes.keySet().forEach(key -> sync.ownWriteEnded(handle, key, null));
      throw e;
    }
    return reply;
  }

  /**
   * Sends a write of {@code key} with {@link TreeSync#ownWriteStarted} before it and {@link
   * TreeSync#ownWriteEnded} after its reply (or its failure to be sent), so that the watch's
   * event of the write sends no read. {@code send} sends the request; its callback applies the
   * reply's fact to the copy, then calls {@code answered} with the reply's code and stat.
   */
  private CompletableFuture<Reply> ownWrite(Session.Handle handle, String key, Consumer<Answer> send) {
    CompletableFuture<Reply> reply = new CompletableFuture<>();
    sync.ownWriteStarted(key);
    try {
      send.accept((rc, stat, failed) -> {
        Code code = Code.get(rc);
        sync.ownWriteEnded(handle, key, code == Code.OK ? stat : null);
        reply.complete(new Reply(code, stat, null, failed));
      });
    } catch (RuntimeException e) {
      sync.ownWriteEnded(handle, key, null);
      throw e;
    }
    return reply;
  }

  CompletableFuture<Reply> delete(Session.Handle handle, String key, int version, String operation) {
    if (history != null) {
      return ownWrite(handle, key, answered -> transaction(handle, key, operation, -1, null, version,
          Op.delete(sync.pathOf(key), version), null, answered));
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
    return createFolders(handle, key, Set.of());
  }

  /**
   * Creates the missing folders of {@code key}, but for its ancestors in {@code keys}: those are
   * keys about to be created, and a folder made first would take their place for good.
   */
  CompletableFuture<Reply> createFolders(Session.Handle handle, String key, Set<String> keys) {
    String serverPath = sync.pathOf(key);
    List<String> ancestors = new ArrayList<>();
    for (int slash = serverPath.indexOf('/', 1); slash > 0; slash = serverPath.indexOf('/', slash + 1)) {
      String ancestor = serverPath.substring(0, slash);
      String ancestorKey = sync.keyOf(ancestor);
      if (ancestorKey == null || !keys.contains(ancestorKey)) {
        ancestors.add(ancestor);
      }
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
