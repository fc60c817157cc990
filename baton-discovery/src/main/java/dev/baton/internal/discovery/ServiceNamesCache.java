package dev.baton.internal.discovery;

import dev.baton.internal.cache.TreeSync;
import dev.baton.internal.session.Session;
import java.util.Collections;
import java.util.Set;
import java.util.TreeSet;

/**
 * The names of the services under a registry's base: a persistent (not recursive) watch on the
 * base tells when its children change, and each change is one listing. Instances coming and going
 * below the services cost nothing here.
 */
final class ServiceNamesCache extends RegistryCache<String, Set<String>> {
  private volatile Set<String> names = Set.of();

  private ServiceNamesCache(Session session, String serverBase) {
    super(session, serverBase, TreeSync.Scope.CHILDREN, String::equals, (key, data, stat) -> key);
  }

  /** The client's cache of the names under {@code serverBase}, shared; {@link #release()} when done. */
  static ServiceNamesCache acquire(Session session, String serverBase) {
    return acquire(session, serverBase, ServiceNamesCache.class, () -> new ServiceNamesCache(session, serverBase));
  }

  /** The names now, sorted and unmodifiable; no request. */
  Set<String> names() {
    return names;
  }

  @Override
  protected void update() {
    names = Collections.unmodifiableSet(new TreeSet<>(tree.nodes().keySet()));
  }

  @Override
  protected Set<String> snapshot() {
    return names;
  }
}
