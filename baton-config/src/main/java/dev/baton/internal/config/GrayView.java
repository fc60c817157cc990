package dev.baton.internal.config;

import dev.baton.config.GrayRelease;
import dev.baton.internal.cache.NodeTree;
import dev.baton.internal.cache.TreeSync;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * What one instance sees of its keys during gray releases: the released value, or the candidate
 * of a release whose rule matches the instance (while the key has a released value). Listeners
 * must hear exactly the changes of what the instance sees, though the released values and the
 * candidates come from two copies, each with its own watch: so this class keeps, for every key
 * whose candidate listeners were last told, that value, and turns each change of either copy
 * into the change of what is seen, if any. Both copies' changes pass here under this object's
 * lock, and are delivered under it, in order.
 */
final class GrayView implements TreeSync.Sink<ConfigGray.Entry> {
  private final String instanceId;
  private final Map<String, String> labels;
  private final ConfigTree tree;
  private final Consumer<List<ConfigTree.Change>> deliver;
  private ConfigGray gray;
  private TreeSync<ConfigTree.Node> released;
  // Written under this, read by readers without it: the keys whose candidate listeners were last
  // told, and that candidate.
  private final Map<String, String> candidatesTold = new ConcurrentHashMap<>();

  GrayView(String instanceId, Map<String, String> labels, ConfigTree tree,
      Consumer<List<ConfigTree.Change>> deliver) {
    this.instanceId = instanceId;
    this.labels = labels;
    this.tree = tree;
    this.deliver = deliver;
  }

  /** The gray copy this view reads and the released one's sync; set once, before either starts. */
  void follow(ConfigGray gray, TreeSync<ConfigTree.Node> released) {
    this.gray = gray;
    this.released = released;
  }

  boolean matches(GrayRelease release) {
    return release != null && release.rule().matches(instanceId, labels);
  }

  /** The candidate this instance sees for {@code key}, or null if it sees the released value. */
  String candidate(String key) {
    GrayRelease release = gray.release(key, tree.node(key));
    return matches(release) ? release.candidate() : null;
  }

  /**
   * What this instance sees of {@code key}, whose released node is {@code node} (may be null). A
   * candidate that has just gone is still seen until the released copy has caught up (see {@link
   * #changed}): reads show what listeners were told, never the old released value in between.
   */
  String value(String key, ConfigTree.Node node) {
    String candidate = candidate(key);
    if (candidate != null) {
      return candidate;
    }
    String settling = candidatesTold.get(key);
    return settling != null ? settling : node == null ? null : node.value();
  }

  /** Released values changed: delivers what changes of what is seen. */
  synchronized void releasedChanged(List<ConfigTree.Change> changes) {
    List<ConfigTree.Change> seen = new ArrayList<>(changes.size());
    for (ConfigTree.Change change : changes) {
      String before = candidatesTold.containsKey(change.key()) ? candidatesTold.get(change.key()) : change.oldValue();
      String candidate = candidate(change.key());
      String now = candidate != null ? candidate : change.newValue();
      remember(change.key(), candidate);
      if (!Objects.equals(before, now)) {
        seen.add(new ConfigTree.Change(change.key(), before, now));
      }
    }
    deliver(seen);
  }

  /**
   * Candidates changed: delivers what changes of what is seen. A candidate this instance stops
   * seeing (promoted, aborted, or its rule changed) gives way to the released value only once the
   * released copy has caught up with the ensemble as of now: a promote writes the released value
   * and then removes the candidate, and this instance hears the removal (which needs no read)
   * before its read of the new released value comes back; falling back at once would show the
   * old released value for a moment, a change the instance never really saw.
   */
  @Override
  public synchronized void changed(List<NodeTree.Change<ConfigGray.Entry>> changes) {
    List<ConfigTree.Change> seen = new ArrayList<>();
    for (NodeTree.Change<ConfigGray.Entry> change : changes) {
      String key = ConfigGray.keyOf(change);
      if (candidatesTold.containsKey(key) && candidate(key) == null) {
        released.refresh(key, () -> settle(key));
        continue;
      }
      ConfigTree.Node node = tree.node(key);
      String released = node == null ? null : node.value();
      String before = candidatesTold.containsKey(key) ? candidatesTold.get(key) : released;
      String candidate = candidate(key);
      String now = candidate != null ? candidate : released;
      remember(key, candidate);
      if (!Objects.equals(before, now)) {
        seen.add(new ConfigTree.Change(key, before, now));
      }
    }
    deliver(seen);
  }

  /** The released copy has caught up with {@code key}: tells what changed, if anything. */
  private synchronized void settle(String key) {
    if (!candidatesTold.containsKey(key)) {
      return; // a change of the released value told it meanwhile
    }
    String before = candidatesTold.get(key);
    String candidate = candidate(key);
    ConfigTree.Node node = tree.node(key);
    String now = candidate != null ? candidate : node == null ? null : node.value();
    remember(key, candidate);
    if (!Objects.equals(before, now)) {
      deliver(List.of(new ConfigTree.Change(key, before, now)));
    }
  }

  private void remember(String key, String candidate) {
    if (candidate != null) {
      candidatesTold.put(key, candidate);
    } else {
      candidatesTold.remove(key);
    }
  }

  private void deliver(List<ConfigTree.Change> seen) {
    if (!seen.isEmpty()) {
      deliver.accept(seen);
    }
  }

  @Override
  public void synced() {}

  /** {@code values} (every released key and value) as this instance sees them. */
  Map<String, String> overlay(Map<String, String> values) {
    for (Map.Entry<String, String> entry : values.entrySet()) {
      String candidate = candidate(entry.getKey());
      String seen = candidate != null ? candidate : candidatesTold.get(entry.getKey());
      if (seen != null) {
        entry.setValue(seen);
      }
    }
    return values;
  }
}
