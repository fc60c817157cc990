package dev.baton.internal.discovery;

import dev.baton.ZkPaths;
import dev.baton.discovery.ServiceInstance;
import dev.baton.internal.session.PersistentWatchCache;
import dev.baton.internal.session.Session;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher;
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
final class ServiceCache extends PersistentWatchCache<List<ServiceInstance>> {
  private static final Logger log = LoggerFactory.getLogger(ServiceCache.class);
  private static final Comparator<ServiceInstance> BY_ID = Comparator.comparing(ServiceInstance::id);

  private final String service;
  // Guarded by this.
  private final Map<String, ServiceInstance> byNode = new TreeMap<>();
  private long listingNumber;
  private int readsOfListing;
  /** A read of the current listing was lost: it is not complete, and is done again. */
  private boolean readLost;
  private volatile List<ServiceInstance> instances = List.of();

  private ServiceCache(Session session, String serverPath, String service) {
    super(session, serverPath, AddWatchMode.PERSISTENT_RECURSIVE);
    this.service = service;
  }

  /** The client's cache of the service at {@code serverPath}, shared; {@link #release()} when done. */
  public static ServiceCache acquire(Session session, String serverPath, String service) {
    return acquire(session, serverPath, AddWatchMode.PERSISTENT_RECURSIVE,
        () -> new ServiceCache(session, serverPath, service));
  }

  /** The instances now, ordered by id; no request. */
  public List<ServiceInstance> instances() {
    return instances;
  }

  @Override
  public void list(Session.Handle on) {
    on.zk().getChildren(serverPath, false, (rc, path, ctx, children) -> listed(on, Code.get(rc), children), null);
  }

  @Override
  public void applyListing(Session.Handle on, List<String> children) {
    long number = ++listingNumber;
    readsOfListing = 0;
    readLost = false;
    List<String> nodes = children == null ? List.of() : children;
    if (byNode.keySet().retainAll(new HashSet<>(nodes))) {
      markChanged(); // gone while the watch was not heard
      refresh();
    }
    for (String node : nodes) {
      readsOfListing++;
      read(on, node, number);
    }
    if (readsOfListing == 0) {
      synced();
    }
  }

  @Override
  public void applyEvent(Session.Handle on, Watcher.Event.EventType type, String path) {
    if (path.equals(serverPath)) {
      if (type == Watcher.Event.EventType.NodeDeleted && !byNode.isEmpty()) {
        byNode.clear(); // the service's container went; its instances went before it
        markChanged();
      }
      return;
    }
    if (!ZkPaths.parent(path).equals(serverPath)) {
      return;
    }
    String node = ZkPaths.name(path);
    switch (type) {
      case NodeCreated, NodeDataChanged -> read(on, node, 0);
      case NodeDeleted -> remove(node);
      default -> { }
    }
  }

  private void read(Session.Handle on, String node, long number) {
    String nodePath = serverPath + "/" + node;
    try {
      on.zk().getData(nodePath, false, (rc, path, ctx, data, stat) -> read(on, node, number, Code.get(rc), data, stat), null);
    } catch (RuntimeException e) {
      // The handle is closing: the session observer lists again on the next one.
    }
  }

  private synchronized void read(Session.Handle on, String node, long number, Code code, byte[] data, Stat stat) {
    if (!current(on)) {
      return;
    }
    switch (code) {
      case OK -> store(node, data);
      case NONODE -> remove(node);
      case NOAUTH -> {
        log.warn("Skipping {}: its ACL refuses this client's identity READ", serverPath + "/" + node);
        remove(node);
      }
      default -> readLost |= number == listingNumber; // connection loss: listed again
    }
    if (number == listingNumber && number != 0 && --readsOfListing == 0) {
      if (readLost) {
        retry(on); // a listing with a hole in it is not a load
      } else {
        synced();
      }
    } else {
      publish();
    }
  }

  private void store(String node, byte[] data) {
    ServiceInstance instance;
    try {
      instance = InstanceJson.decode(data == null ? new byte[0] : data, service, node);
    } catch (IllegalArgumentException e) {
      log.warn("Skipping {}: its data is not a service instance ({})", serverPath + "/" + node, e.getMessage());
      remove(node);
      return;
    }
    if (!instance.equals(byNode.put(node, instance))) {
      markChanged();
      refresh();
    }
  }

  private void remove(String node) {
    if (byNode.remove(node) != null) {
      markChanged();
      refresh();
    }
  }

  private void refresh() {
    List<ServiceInstance> sorted = new ArrayList<>(byNode.values());
    sorted.sort(BY_ID);
    instances = List.copyOf(sorted);
  }

  @Override
  public List<ServiceInstance> snapshot() {
    return instances;
  }

  @Override
  public String toString() {
    return "ServiceCache[" + serverPath + "]";
  }
}
