package dev.baton.internal.discovery;

import dev.baton.discovery.ServiceInstance;
import dev.baton.internal.cache.TreeSync;
import dev.baton.internal.session.Session;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live instances of one service, {@code <base>/<service>/<node>}: a persistent recursive watch
 * on the service's node tells of every instance node created, changed or deleted (and the watch
 * may be set while the service node does not exist yet). A created or changed node is read; a
 * deleted one is dropped at once. A node's data that is not an instance is skipped with a
 * warning naming its path. Deeper nodes are not instances and are ignored.
 */
final class ServiceCache extends RegistryCache<Optional<ServiceInstance>, List<ServiceInstance>> {
  private static final Logger log = LoggerFactory.getLogger(ServiceCache.class);
  private static final Comparator<ServiceInstance> BY_ID = Comparator.comparing(ServiceInstance::id);

  private volatile List<ServiceInstance> instances = List.of();

  private ServiceCache(Session session, String serverPath, String service) {
    super(session, serverPath, TreeSync.Scope.DESCENDANTS, Objects::equals,
        (key, data, stat) -> decode(serverPath, service, key, data));
  }

  /** The client's cache of the service at {@code serverPath}, shared; {@link #release()} when done. */
  static ServiceCache acquire(Session session, String serverPath, String service) {
    return acquire(session, serverPath, ServiceCache.class, () -> new ServiceCache(session, serverPath, service));
  }

  private static Optional<ServiceInstance> decode(String serverPath, String service, String key, byte[] data) {
    if (key.indexOf('/') >= 0) {
      return Optional.empty(); // below an instance: not one
    }
    try {
      return Optional.of(InstanceJson.decode(data == null ? new byte[0] : data, service, key));
    } catch (IllegalArgumentException e) {
      log.warn("Skipping {}: its data is not a service instance ({})", serverPath + "/" + key, e.getMessage());
      return Optional.empty();
    }
  }

  /** The instances now, ordered by id; no request. */
  List<ServiceInstance> instances() {
    return instances;
  }

  @Override
  protected void update() {
    List<ServiceInstance> sorted = new ArrayList<>();
    for (Optional<ServiceInstance> node : tree.nodes().values()) {
      node.ifPresent(sorted::add);
    }
    sorted.sort(BY_ID);
    instances = List.copyOf(sorted);
  }

  @Override
  protected List<ServiceInstance> snapshot() {
    return instances;
  }
}
