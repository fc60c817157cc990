package dev.baton.internal.discovery;

import dev.baton.discovery.PickStrategy;
import dev.baton.discovery.ServiceInstance;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The choice of {@link dev.baton.discovery.ServiceView#pick}: one view's round-robin position and sticky
 * choice, over the list of instances it is given. Thread-safe, without locks: concurrent picks
 * may share a turn, never return an instance not in the list.
 */
final class InstancePicker {
  private final AtomicInteger next = new AtomicInteger();
  private final AtomicReference<String> sticky = new AtomicReference<>();

  /** One enabled instance of {@code instances} (ordered by id), chosen by {@code strategy}. */
  Optional<ServiceInstance> pick(List<ServiceInstance> instances, PickStrategy strategy) {
    List<ServiceInstance> enabled = enabled(instances);
    if (enabled.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(switch (strategy) {
      case ROUND_ROBIN -> roundRobin(enabled);
      case RANDOM -> enabled.get(ThreadLocalRandom.current().nextInt(enabled.size()));
      case STICKY -> sticky(enabled);
    });
  }

  private ServiceInstance roundRobin(List<ServiceInstance> enabled) {
    return enabled.get(Math.floorMod(next.getAndIncrement(), enabled.size()));
  }

  private ServiceInstance sticky(List<ServiceInstance> enabled) {
    String id = sticky.get();
    if (id != null) {
      for (ServiceInstance instance : enabled) {
        if (instance.id().equals(id)) {
          return instance;
        }
      }
    }
    ServiceInstance chosen = roundRobin(enabled);
    sticky.compareAndSet(id, chosen.id());
    return chosen;
  }

  private static List<ServiceInstance> enabled(List<ServiceInstance> instances) {
    for (ServiceInstance instance : instances) {
      if (!instance.isEnabled()) {
        List<ServiceInstance> enabled = new ArrayList<>(instances.size());
        for (ServiceInstance candidate : instances) {
          if (candidate.isEnabled()) {
            enabled.add(candidate);
          }
        }
        return enabled;
      }
    }
    return instances;
  }
}
