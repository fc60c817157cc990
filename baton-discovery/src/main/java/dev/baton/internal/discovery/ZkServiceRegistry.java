package dev.baton.internal.discovery;

import dev.baton.ZkPaths;
import dev.baton.discovery.InstanceLayout;
import dev.baton.discovery.RegisterOptions;
import dev.baton.discovery.Registration;
import dev.baton.discovery.ServiceInstance;
import dev.baton.discovery.ServiceRegistry;
import dev.baton.discovery.ServiceView;
import dev.baton.internal.cache.SerialListeners;
import dev.baton.internal.session.ChildReads;
import dev.baton.internal.session.RecipePaths;
import dev.baton.internal.session.Retrying;
import dev.baton.internal.session.Session;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service registry: registrations ({@link ZkRegistration}), views of services (a {@link
 * ServiceCache} each, shared by the client's views of the same service) and the cache of service
 * names ({@link ServiceNamesCache}). See {@link ServiceRegistry} for the contract.
 */
public final class ZkServiceRegistry implements ServiceRegistry {
  private static final Logger log = LoggerFactory.getLogger(ZkServiceRegistry.class);

  private final Session session;
  private final String basePath;
  private final Set<ZkRegistration> registrations = ConcurrentHashMap.newKeySet();
  private final Set<ZkServiceView> views = ConcurrentHashMap.newKeySet();
  /** Each listener hears the changes one at a time and in order, whatever its executor. */
  private final SerialListeners<Consumer<Set<String>>, Set<String>> namesListeners =
      new SerialListeners<>(Consumer::accept);
  private final Consumer<Set<String>> namesSubscriber = this::namesChanged;

  // Guarded by this.
  private ServiceNamesCache names;
  private boolean closed;
  private ScheduledExecutorService healthChecks;

  /** {@code basePath} must be validated already. */
  public ZkServiceRegistry(Session session, String basePath) {
    this.session = session;
    this.basePath = basePath;
  }

  @Override
  public String basePath() {
    return basePath;
  }

  @Override
  public Registration register(ServiceInstance instance) {
    return register(instance, RegisterOptions.defaults());
  }

  @Override
  public Registration register(ServiceInstance instance, RegisterOptions options) {
    Objects.requireNonNull(instance, "instance must not be null");
    Objects.requireNonNull(options, "options must not be null");
    checkOpen();
    if (options.healthCheck().isPresent()) {
      return HealthCheckedRegistration.register(instance, options, healthChecks(),
          checked -> registerNode(checked, options.layout()));
    }
    return registerNode(instance, options.layout());
  }

  private ZkRegistration registerNode(ServiceInstance instance, InstanceLayout layout) {
    ZkRegistration registration;
    if (layout == InstanceLayout.NAMING) {
      String node = NamingLayout.nodeName(instance);
      ServiceInstance named = instance.toBuilder().id(node).build();
      String path = RecipePaths.check(session.settings(), servicePath(named.name()) + "/" + node,
          "service instance path");
      registration = ZkRegistration.register(session, path, named, registrations::remove, NamingLayout::encode);
    } else {
      String path = RecipePaths.check(session.settings(), servicePath(instance.name()) + "/" + instance.id(),
          "service instance path");
      registration = ZkRegistration.register(session, path, instance, registrations::remove);
    }
    registrations.add(registration);
    boolean closedMeanwhile;
    synchronized (this) {
      closedMeanwhile = closed;
    }
    if (closedMeanwhile) {
      registration.close();
      throw new IllegalStateException("The service registry at " + basePath + " was closed while registering "
          + registration.path() + "; it is not registered");
    }
    return registration;
  }

  /** The thread health checks run on, one for the registry, made on first use. */
  private synchronized ScheduledExecutorService healthChecks() {
    if (healthChecks == null) {
      healthChecks = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "baton-health-" + basePath);
        thread.setDaemon(true);
        return thread;
      });
    }
    return healthChecks;
  }

  @Override
  public ServiceView watch(String service) {
    String path = RecipePaths.check(session.settings(), servicePath(ZkPaths.validateName(service, "service name")),
        "service path");
    checkOpen();
    ServiceCache cache = ServiceCache.acquire(session, session.settings().onServer(path), service);
    ZkServiceView[] self = new ZkServiceView[1];
    ZkServiceView view = new ZkServiceView(session, service, cache, () -> views.remove(self[0]));
    self[0] = view;
    views.add(view);
    try {
      cache.awaitLoaded(path);
    } catch (RuntimeException e) {
      view.close();
      checkOpen();
      throw e;
    }
    synchronized (this) {
      if (closed) {
        view.close();
        throw new IllegalStateException("The service registry at " + basePath + " is closed");
      }
    }
    return view;
  }

  @Override
  public List<ServiceInstance> instances(String service) {
    String path = RecipePaths.check(session.settings(), servicePath(ZkPaths.validateName(service, "service name")),
        "service path");
    checkOpen();
    String serverPath = session.settings().onServer(path);
    return Retrying.call(session, path, zk -> {
      List<ServiceInstance> instances = new ArrayList<>();
      ChildReads.read(zk, serverPath).forEach((node, data) -> {
        try {
          instances.add(InstanceJson.decode(data, service, node));
        } catch (IllegalArgumentException e) {
          log.warn("Skipping {}: its data is not a service instance ({})", path + "/" + node, e.getMessage());
        }
      });
      instances.sort(Comparator.comparing(ServiceInstance::id));
      return List.copyOf(instances);
    });
  }

  @Override
  public Set<String> services() {
    ServiceNamesCache cache = names();
    try {
      cache.awaitLoaded(basePath);
    } catch (RuntimeException e) {
      checkOpen();
      synchronized (this) {
        if (names == cache && cache.isFailed()) {
          // Stopped by a refusal: the next call tries afresh, once, rather than the client on every reconnection.
          names = null;
          cache.unsubscribe(namesSubscriber);
          cache.release();
        }
      }
      throw e;
    }
    return cache.names();
  }

  @Override
  public void addServicesListener(Consumer<Set<String>> listener, Executor executor) {
    Objects.requireNonNull(listener, "listener must not be null");
    Objects.requireNonNull(executor, "executor must not be null");
    names();
    namesListeners.add(listener, executor);
  }

  @Override
  public void removeServicesListener(Consumer<Set<String>> listener) {
    namesListeners.remove(listener);
  }

  private synchronized ServiceNamesCache names() {
    checkOpen();
    if (names == null) {
      names = ServiceNamesCache.acquire(session, session.settings().onServer(basePath));
      names.subscribe(namesSubscriber);
    }
    return names;
  }

  private void namesChanged(Set<String> current) {
    namesListeners.deliver(List.of(current));
  }

  @Override
  public void close() {
    ServiceNamesCache namesCache;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      namesCache = names;
      names = null;
      if (healthChecks != null) {
        healthChecks.shutdownNow();
      }
    }
    if (namesCache != null) {
      namesCache.unsubscribe(namesSubscriber);
      namesCache.release();
    }
    for (ZkServiceView view : List.copyOf(views)) {
      view.close();
    }
    RuntimeException first = null;
    for (ZkRegistration registration : List.copyOf(registrations)) {
      try {
        registration.close();
      } catch (RuntimeException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  private String servicePath(String service) {
    return ZkPaths.join(basePath, service);
  }

  private synchronized void checkOpen() {
    session.checkOpen();
    if (closed) {
      throw new IllegalStateException("The service registry at " + basePath + " is closed");
    }
  }

  @Override
  public String toString() {
    return "ServiceRegistry[" + basePath + "]";
  }
}
