package dev.baton.internal.config;

import dev.baton.BatonException;
import dev.baton.TransactionFailedException;
import dev.baton.ZkPaths;
import dev.baton.internal.session.Errors;
import dev.baton.internal.session.NodeSizes;
import dev.baton.internal.session.Session;
import dev.baton.internal.session.Transactions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;

/**
 * An import of many keys: every key and value checked before anything is sent, then the keys
 * whose value differs from the local copy's written in as few transactions as fit ZooKeeper's
 * packet limit (each with the keys' revisions when the config center keeps history), each on
 * the version the copy holds, so a key written meanwhile by someone else fails its batch instead
 * of being overwritten blindly.
 */
final class ConfigImport {
  private final Session session;
  private final String prefix;
  private final ConfigTree tree;
  private final ConfigRequests requests;
  /** Null without history. */
  private final ConfigHistory history;
  private final int maxPacket;

  ConfigImport(Session session, String prefix, ConfigTree tree, ConfigRequests requests, ConfigHistory history,
      int maxPacket) {
    this.session = session;
    this.prefix = prefix;
    this.tree = tree;
    this.requests = requests;
    this.history = history;
    this.maxPacket = maxPacket;
  }

  /**
   * Writes {@code values}; returns how many keys changed.
   *
   * @throws IllegalArgumentException naming the first bad key or value; nothing written
   * @throws BatonException naming the batch that failed; the batches before it were applied
   */
  int write(Map<String, String> values) {
    List<String> changed = new ArrayList<>();
    for (Map.Entry<String, String> entry : values.entrySet()) {
      String key = entry.getKey();
      ConfigValues.validateKey(prefix, key);
      Objects.requireNonNull(entry.getValue(), () -> "the value of '" + key + "' must not be null");
      byte[] data = ConfigValues.encode(entry.getValue());
      String serverPath = requests.serverPath(key);
      int max = NodeSizes.maxCreateData(serverPath, session.settings().aclFor(serverPath), maxPacket);
      ConfigValues.checkSize(key, ZkPaths.join(prefix, key), data, history == null ? max : (max - 4096) / 3, maxPacket);
      ConfigTree.Node node = tree.node(key);
      if (node != null && !node.isKey()) {
        throw new IllegalArgumentException("config key '" + key + "' cannot be imported: " + ZkPaths.join(prefix, key)
            + " is a folder of nested keys (a node without data); nothing was written");
      }
      if (node == null || !entry.getValue().equals(node.value())) {
        changed.add(key);
      }
    }
    List<List<String>> batches = batches(changed, values);
    for (int i = 0; i < batches.size(); i++) {
      send(batches.get(i), values, i + 1, batches.size());
    }
    return changed.size();
  }

  /** The keys in groups whose transaction fits half the packet limit (the rest is headroom). */
  private List<List<String>> batches(List<String> keys, Map<String, String> values) {
    List<List<String>> batches = new ArrayList<>();
    List<String> batch = new ArrayList<>();
    long bytes = 0;
    for (String key : keys) {
      long size = 2L * NodeSizes.utf8Length(requests.serverPath(key)) + 256
          + (history == null ? 1 : 3) * (long) ConfigValues.encode(values.get(key)).length;
      if (!batch.isEmpty() && bytes + size > maxPacket / 2) {
        batches.add(batch);
        batch = new ArrayList<>();
        bytes = 0;
      }
      batch.add(key);
      bytes += size;
    }
    if (!batch.isEmpty()) {
      batches.add(batch);
    }
    return batches;
  }

  private void send(List<String> keys, Map<String, String> values, int number, int of) {
    Session.Handle handle = session.handle();
    List<CompletableFuture<ConfigRequests.Reply>> folders = new ArrayList<>();
    List<Op> ops = new ArrayList<>();
    for (String key : keys) {
      ConfigTree.Node node = tree.node(key);
      byte[] data = ConfigValues.encode(values.get(key));
      String path = ZkPaths.join(prefix, key);
      if (history != null) {
        history.prepare(handle, key);
      }
      if (node == null) {
        folders.add(requests.createFolders(handle, key));
        ops.add(Op.create(path, data, session.settings().aclFor(requests.serverPath(key)), CreateMode.PERSISTENT));
      } else {
        ops.add(Op.setData(path, data, node.version()));
      }
      if (history != null) {
        ops.add(history.revisionOnClient(key, "import", node == null ? 0 : node.version() + 1, values.get(key),
            node == null ? -1 : node.version(), node == null ? null : node.value()));
      }
    }
    for (CompletableFuture<ConfigRequests.Reply> folder : folders) {
      Code code = folder.join().code();
      if (code != Code.OK) {
        throw Errors.translate(org.apache.zookeeper.KeeperException.create(code, prefix), prefix);
      }
    }
    try {
      Transactions.run(session, ops);
    } catch (TransactionFailedException e) {
      throw new BatonException("Import into " + prefix + " stopped at batch " + number + " of " + of + ": "
          + e.getMessage() + " (a key changed meanwhile, or its folder went); the " + (number - 1)
          + " batches before it were applied, this one and the later ones were not. Import again to finish", e);
    }
  }
}
