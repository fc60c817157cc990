package dev.baton.internal.discovery;

import dev.baton.internal.session.PersistentWatchCache;
import dev.baton.internal.session.Session;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher;

/**
 * The names of the services under a registry's base: a persistent (not recursive) watch on the
 * base tells when its children change, and each change is one listing. Instances coming and going
 * below the services cost nothing here.
 */
final class ServiceNamesCache extends PersistentWatchCache<Set<String>> {
  private volatile Set<String> names = Set.of();

  private ServiceNamesCache(Session session, String serverBase) {
    super(session, serverBase, AddWatchMode.PERSISTENT);
  }

  /** The client's cache of the names under {@code serverBase}, shared; {@link #release()} when done. */
  public static ServiceNamesCache acquire(Session session, String serverBase) {
    return acquire(session, serverBase, AddWatchMode.PERSISTENT, () -> new ServiceNamesCache(session, serverBase));
  }

  /** The names now, sorted and unmodifiable; no request. */
  public Set<String> names() {
    return names;
  }

  @Override
  public void list(Session.Handle on) {
    on.zk().getChildren(serverPath, false, (rc, path, ctx, children) -> listed(on, Code.get(rc), children), null);
  }

  @Override
  public void applyListing(Session.Handle on, List<String> children) {
    Set<String> listed = children == null ? Set.of() : Collections.unmodifiableSet(new TreeSet<>(children));
    if (!listed.equals(names)) {
      names = listed;
      markChanged();
    }
    synced();
  }

  @Override
  public void applyEvent(Session.Handle on, Watcher.Event.EventType type, String path) {
    if (type != Watcher.Event.EventType.NodeDataChanged) {
      sync(false); // children changed, or the base came or went: list again
    }
  }

  @Override
  public Set<String> snapshot() {
    return names;
  }

  @Override
  public String toString() {
    return "ServiceNamesCache[" + serverPath + "]";
  }
}
