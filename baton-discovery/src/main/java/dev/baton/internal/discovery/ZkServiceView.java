package dev.baton.internal.discovery;

import dev.baton.discovery.PickOptions;
import dev.baton.discovery.PickStrategy;
import dev.baton.discovery.ServiceInstance;
import dev.baton.discovery.ServiceView;
import dev.baton.internal.cache.SerialListeners;
import dev.baton.internal.session.Session;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * A view of a service: the client's shared {@link ServiceCache} of it, this view's listeners and
 * its own picking state.
 */
final class ZkServiceView implements ServiceView {
  private final Session session;
  private final String service;
  private final ServiceCache cache;
  private final Runnable onClose;
  private final InstancePicker picker = new InstancePicker();
  /** Each listener hears the changes one at a time and in order, whatever its executor (a pool, say). */
  private final SerialListeners<Consumer<List<ServiceInstance>>, List<ServiceInstance>> listeners =
      new SerialListeners<>(Consumer::accept);
  private final Consumer<List<ServiceInstance>> subscriber = this::changed;
  private final AtomicBoolean closed = new AtomicBoolean();
  /** What the view holds once closed: the instances as last known. */
  private volatile List<ServiceInstance> frozen;

  ZkServiceView(Session session, String service, ServiceCache cache, Runnable onClose) {
    this.session = session;
    this.service = service;
    this.cache = cache;
    this.onClose = onClose;
    cache.subscribe(subscriber);
  }

  @Override
  public String service() {
    return service;
  }

  @Override
  public List<ServiceInstance> instances() {
    List<ServiceInstance> last = frozen;
    return last != null ? last : cache.instances();
  }

  @Override
  public Optional<ServiceInstance> instance(String id) {
    Objects.requireNonNull(id, "id must not be null");
    for (ServiceInstance instance : instances()) {
      if (instance.id().equals(id)) {
        return Optional.of(instance);
      }
    }
    return Optional.empty();
  }

  @Override
  public Optional<ServiceInstance> pick(PickStrategy strategy) {
    Objects.requireNonNull(strategy, "strategy must not be null");
    return picker.pick(instances(), strategy);
  }
  @Override
  public Optional<ServiceInstance> pickWith(PickOptions options) {
    java.util.Objects.requireNonNull(options, "options must not be null");
    return picker.pick(instances(), options);
  }


  @Override
  public boolean isStale() {
    return closed.get() || cache.isStale();
  }

  @Override
  public void addListener(Consumer<List<ServiceInstance>> listener) {
    addListener(listener, session.eventExecutor());
  }

  @Override
  public void addListener(Consumer<List<ServiceInstance>> listener, Executor executor) {
    listeners.add(Objects.requireNonNull(listener, "listener must not be null"),
        Objects.requireNonNull(executor, "executor must not be null"));
  }

  @Override
  public void removeListener(Consumer<List<ServiceInstance>> listener) {
    listeners.remove(listener);
  }

  private void changed(List<ServiceInstance> instances) {
    listeners.deliver(List.of(instances));
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      frozen = cache.instances();
      cache.unsubscribe(subscriber);
      cache.release();
      onClose.run();
    }
  }

  @Override
  public String toString() {
    return "ServiceView[" + service + ", " + instances().size() + " instances]";
  }
}
