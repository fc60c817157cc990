package dev.baton.internal.config;

import dev.baton.BatonException;
import dev.baton.BatonInterruptedException;
import dev.baton.ConnectionException;
import dev.baton.OutcomeUnknownException;
import dev.baton.RetryPolicy;
import dev.baton.ZkPaths;
import dev.baton.config.ImportOptions;
import dev.baton.config.ImportPlan;
import dev.baton.internal.session.Errors;
import dev.baton.internal.session.NodeSizes;
import dev.baton.internal.session.Session;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;

/**
 * An import of many keys: every key and value checked before anything is sent, then the keys
 * whose value differs from the local copy's (and, with a prune, the deletes of the keys the text
 * leaves out) written in as few transactions as fit ZooKeeper's
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

  /** An import worked out against the copy: the plan, the values to write, the keys to delete. */
  record Planned(ImportPlan plan, Map<String, String> values, List<String> removed) {}

  /**
   * What importing {@code read} would do, against the copy: the keys whose value differs, and
   * with a prune the keys of the copy the text leaves out. Sends nothing.
   *
   * @throws IllegalArgumentException naming the first bad key (and its line) or value, a key that
   *     cannot be pruned, or a prune of an empty text without {@link ImportOptions#allowEmpty()}
   */
  Planned plan(ConfigText.Read read, ImportOptions options) {
    Map<String, String> values = read.values();
    String scope = options.keyPrefix();
    if (!scope.isEmpty()) {
      ConfigValues.validateKey(prefix, scope);
    }
    List<ImportPlan.Change> changes = new ArrayList<>();
    for (Map.Entry<String, String> entry : values.entrySet()) {
      String key = entry.getKey();
      try {
        ConfigValues.validateKey(prefix, key);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(e.getMessage() + read.at(key) + "; nothing was written", e);
      }
      if (!scope.isEmpty() && !ConfigValues.isAtOrBelow(key, scope)) {
        throw new IllegalArgumentException("config key '" + key + "'" + read.at(key) + " is outside the import's"
            + " key prefix '" + scope + "' (only " + scope + " and the keys below it); nothing was written");
      }
      Objects.requireNonNull(entry.getValue(), () -> "the value of '" + key + "' must not be null");
      byte[] data = ConfigValues.encode(entry.getValue());
      String serverPath = requests.serverPath(key);
      int max = NodeSizes.maxCreateData(serverPath, session.settings().aclFor(serverPath), maxPacket);
      ConfigValues.checkSize(key, ZkPaths.join(prefix, key), data, history == null ? max : (max - 4096) / 3, maxPacket);
      ConfigTree.Node node = tree.node(key);
      if (node != null && !node.isKey()) {
        throw new IllegalArgumentException("config key '" + key + "'" + read.at(key) + " cannot be imported: "
            + ZkPaths.join(prefix, key) + " is a folder of nested keys (a node without data); nothing was written");
      }
      if (node == null || !entry.getValue().equals(node.value())) {
        changes.add(new ImportPlan.Change(key, node == null ? null : node.value(), entry.getValue()));
      }
    }
    List<String> removed = new ArrayList<>();
    if (options.prune()) {
      Map<String, ConfigTree.Node> keys = new java.util.TreeMap<>(tree.keys());
      if (!scope.isEmpty()) {
        keys.keySet().removeIf(key -> !ConfigValues.isAtOrBelow(key, scope));
      }
      if (values.isEmpty() && !options.allowEmpty() && !keys.isEmpty()) {
        throw new IllegalArgumentException("The text to import holds no key, and a prune would delete every key"
            + " below " + (scope.isEmpty() ? prefix : ZkPaths.join(prefix, scope)) + " (" + keys.size()
            + "); refused, nothing was written. To empty it on purpose, allow it: ImportOptions.withAllowEmpty(),"
            + " or --allow-empty on the command line");
      }
      for (Map.Entry<String, ConfigTree.Node> entry : keys.entrySet()) {
        String key = entry.getKey();
        if (values.containsKey(key)) {
          continue;
        }
        // ZooKeeper cannot delete a node with children: every key below it must go too.
        String staying = null;
        for (Map.Entry<String, ConfigTree.Node> below : tree.descendants(key).entrySet()) {
          if (below.getValue().isKey() && values.containsKey(below.getKey())) {
            staying = below.getKey();
            break;
          }
        }
        if (staying == null) {
          String child = key + "/";
          staying = values.keySet().stream().filter(k -> k.startsWith(child)).findFirst().orElse(null);
        }
        if (staying != null) {
          throw new IllegalArgumentException("config key '" + key + "' cannot be pruned: the text keeps '" + staying
              + "' below it, and ZooKeeper cannot delete a node with children. Add '" + key + "' to the text, or"
              + " leave out the keys below it too; nothing was written");
        }
        removed.add(key);
        changes.add(new ImportPlan.Change(key, entry.getValue().value(), null));
      }
    }
    changes.sort(Comparator.comparing(ImportPlan.Change::key));
    return new Planned(new ImportPlan(changes), values, removed);
  }

  /**
   * Carries out {@code planned}: the keys whose value differs, then the pruned ones, batched.
   * The keys are written parent first (a key before the keys nested below it), and a key's
   * folders are made only for ancestors that are not keys of the import: {@code db} beside
   * {@code db/url} is a key, never a folder. Pruned keys are deleted after them, the deepest
   * first (with the folders the copy has below them), in the same batches where they fit.
   *
   * @throws BatonException naming the batch that failed; the batches before it were applied
   * @throws OutcomeUnknownException naming the batch whose reply was lost; the batches before it
   *     were applied, the later ones not sent
   */
  ImportPlan write(Planned planned) {
    Map<String, String> values = planned.values();
    List<String> changed = new ArrayList<>();
    for (ImportPlan.Change change : planned.plan().changes()) {
      if (change.newValue() != null) {
        changed.add(change.key());
      }
    }
    // A key sorts before every key nested below it ("db" < "db/url"): parents are created first,
    // in an earlier batch or earlier in the same one; deletes go the other way, children first.
    changed.sort(Comparator.naturalOrder());
    List<String> deletes = new ArrayList<>(planned.removed());
    deletes.sort(Comparator.reverseOrder());
    changed.addAll(deletes);
    List<List<String>> batches = batches(changed, values, new HashSet<>(deletes));
    for (int i = 0; i < batches.size(); i++) {
      send(batches.get(i), values, new HashSet<>(deletes), i + 1, batches.size());
    }
    return planned.plan();
  }

  /** The keys in groups whose transaction fits half the packet limit (the rest is headroom). */
  private List<List<String>> batches(List<String> keys, Map<String, String> values, Set<String> deletes) {
    List<List<String>> batches = new ArrayList<>();
    List<String> batch = new ArrayList<>();
    long bytes = 0;
    for (String key : keys) {
      long size;
      if (deletes.contains(key)) {
        ConfigTree.Node node = tree.node(key);
        size = 2L * NodeSizes.utf8Length(requests.serverPath(key)) + 256
            + (history == null || node == null ? 0 : ConfigValues.encode(node.value()).length)
            + tree.descendants(key).size() * (NodeSizes.utf8Length(requests.serverPath(key)) + 256L);
      } else {
        size = 2L * NodeSizes.utf8Length(requests.serverPath(key)) + 256
            + (history == null ? 1 : 3) * (long) ConfigValues.encode(values.get(key)).length;
      }
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

  /**
   * Sends one batch: its folders, then its transaction, on the versions the copy holds then (the
   * batches before it are in the copy: their replies put them there). Waits for the connection
   * and retries what is safe to repeat (the folders, a transaction that certainly failed) as the
   * retry policy allows.
   */
  private void send(List<String> keys, Map<String, String> values, Set<String> deletes, int number, int of) {
    RetryPolicy policy = session.settings().retryPolicy();
    Set<String> imported = values.keySet();
    int failures = 0;
    for (int round = 1; ; round++) {
      Code code = awaitConnectionAndRun(keys, values, deletes, imported, number, of);
      if (code == Code.OK) {
        return;
      }
      if (!Errors.isConnectionProblem(code)) {
        if (round < MAX_ROUNDS) {
          continue; // a history folder removed meanwhile: made again by the next round
        }
        throw new BatonException("Import into " + prefix + " stopped at batch " + number + " of " + of
            + ": its history folders keep disappearing. " + applied(number) + " Import again to finish");
      }
      failures++; // the connection went before the transaction was sent: nothing of this batch applied
      if (failures > policy.maxRetries()) {
        throw new ConnectionException("Connection to ZooKeeper lost during an import into " + prefix
            + ", before batch " + number + " of " + of + " was sent; the retry policy gave up. " + applied(number)
            + " Import again to finish");
      }
      pause(policy.delayBefore(failures).toNanos());
    }
  }

  private static final int MAX_ROUNDS = 10;

  /**
   * One attempt at a batch: OK, a connection problem before the transaction was sent (safe to
   * repeat), or {@code SYSTEMERROR} for a history folder gone (the batch was not applied).
   */
  private Code awaitConnectionAndRun(List<String> keys, Map<String, String> values, Set<String> deletes,
      Set<String> imported, int number, int of) {
    awaitConnection(number, of);
    Session.Handle handle = session.handle();
    Map<String, byte[]> writes = new LinkedHashMap<>();
    Map<String, ConfigTree.Node> known = new HashMap<>();
    Map<String, List<String>> foldersBefore = new HashMap<>();
    Set<String> created = new HashSet<>();
    Set<String> folderInBatch = new HashSet<>();
    List<CompletableFuture<ConfigRequests.Reply>> folders = new ArrayList<>();
    for (String key : keys) {
      ConfigTree.Node node = tree.node(key);
      if (deletes.contains(key)) {
        if (node != null && node.isKey()) { // else gone meanwhile: nothing to delete
          writes.put(key, null);
          known.put(key, node);
        }
        continue;
      }
      writes.put(key, ConfigValues.encode(values.get(key)));
      if (node != null) {
        known.put(key, node);
        continue;
      }
      created.add(key);
      // Folders below a key this batch creates go in the transaction, after that key; the others
      // are made before it (pipelined), but never for a key of the import.
      boolean belowCreated = false;
      for (int slash = key.indexOf('/'); slash > 0; slash = key.indexOf('/', slash + 1)) {
        String ancestor = key.substring(0, slash);
        if (!belowCreated && created.contains(ancestor)) {
          belowCreated = true;
        } else if (belowCreated && !imported.contains(ancestor) && folderInBatch.add(ancestor)) {
          foldersBefore.computeIfAbsent(key, k -> new ArrayList<>()).add(ancestor);
        }
      }
      if (!belowCreated) {
        folders.add(requests.createFolders(handle, key, imported));
      }
    }
    for (CompletableFuture<ConfigRequests.Reply> folder : folders) {
      Code code = await(folder, number, of, false).code();
      if (Errors.isConnectionProblem(code)) {
        return code;
      }
      if (code != Code.OK) {
        throw Errors.translate(KeeperException.create(code, prefix), prefix);
      }
    }
    if (writes.isEmpty()) {
      return Code.OK;
    }
    ConfigRequests.BatchReply reply = await(requests.writeAll(handle, writes, known, foldersBefore, "import"),
        number, of, true);
    if (reply.code() == Code.OK) {
      return Code.OK;
    }
    if (Errors.isConnectionProblem(reply.code())) {
      throw new OutcomeUnknownException(prefix, "Connection to ZooKeeper lost during batch " + number + " of " + of
          + " of an import into " + prefix + ": that batch may or may not have been applied, and was not sent"
          + " again; " + applied(number).toLowerCase(java.util.Locale.ROOT) + " Import again to finish: keys"
          + " already written are then unchanged and skipped", KeeperException.create(reply.code(), prefix));
    }
    if (reply.failed() == ConfigRequests.Part.REVISION) {
      return Code.SYSTEMERROR;
    }
    String path = reply.failedKey() == null ? prefix : ZkPaths.join(prefix, reply.failedKey());
    throw new BatonException("Import into " + prefix + " stopped at batch " + number + " of " + of + ": the write"
        + " of " + path + " failed: " + Errors.translate(KeeperException.create(reply.code(), path), path).getMessage()
        + " (the key changed meanwhile). " + applied(number) + " This one and the later ones were not. Import"
        + " again to finish");
  }

  /** What an error of batch {@code number} says of the batches before it. */
  private static String applied(int number) {
    return number == 1 ? "No batch before it was applied."
        : number == 2 ? "The 1 batch before it was applied."
        : "The " + (number - 1) + " batches before it were applied.";
  }

  private void awaitConnection(int number, int of) {
    RetryPolicy policy = session.settings().retryPolicy();
    for (int attempt = 1; !session.state().isConnected(); attempt++) {
      session.checkOpen();
      if (attempt > policy.maxRetries()) {
        throw new ConnectionException("Not connected to ZooKeeper at " + session.settings().connectString()
            + "; the retry policy gave up waiting to send batch " + number + " of " + of + " of an import into "
            + prefix + ". " + applied(number) + " Import again to finish");
      }
      pause(policy.delayBefore(attempt).toNanos());
    }
    session.checkOpen();
  }

  private void pause(long nanos) {
    try {
      TimeUnit.NANOSECONDS.sleep(Math.max(nanos, TimeUnit.MILLISECONDS.toNanos(1)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BatonInterruptedException("Interrupted during an import into " + prefix + "; nothing more sent", e);
    }
  }

  private <T> T await(CompletableFuture<T> reply, int number, int of, boolean mayBeApplied) {
    try {
      while (true) {
        try {
          return reply.get(1, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
          session.checkOpen(); // ZooKeeper answers every request; only a closing client leaves one unanswered
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BatonInterruptedException("Interrupted during batch " + number + " of " + of + " of an import into "
          + prefix + (mayBeApplied ? "; that batch may or may not have been applied" : "; that batch was not sent")
          + ". " + applied(number), e);
    } catch (ExecutionException e) {
      throw Errors.translate(e.getCause(), prefix);
    }
  }
}
