package dev.baton.internal.discovery;

import dev.baton.discovery.PickOptions;
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
    return pick(instances, PickOptions.of(strategy));
  }

  /** One instance of {@code instances} (ordered by id), chosen as {@code options} say. */
  Optional<ServiceInstance> pick(List<ServiceInstance> instances, PickOptions options) {
    return choose(candidates(instances, options), options.strategy());
  }

  /** The instances {@code options} let the strategy choose from; see {@link PickOptions}. */
  static List<ServiceInstance> candidates(List<ServiceInstance> instances, PickOptions options) {
    List<ServiceInstance> candidates = enabled(instances);
    if (!instances.isEmpty() && candidates.size() < options.protectionThreshold() * instances.size()) {
      candidates = instances; // protection: too few left up to carry the load
    }
    if (options.zone().isPresent()) {
      String zone = options.zone().get();
      List<ServiceInstance> local = new ArrayList<>();
      for (ServiceInstance instance : candidates) {
        if (zone.equals(instance.payload().get("zone"))) {
          local.add(instance);
        }
      }
      if (!local.isEmpty()) {
        candidates = local;
      }
    }
    return candidates;
  }

  private Optional<ServiceInstance> choose(List<ServiceInstance> candidates, PickStrategy strategy) {
    if (candidates.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(switch (strategy) {
      case ROUND_ROBIN -> roundRobin(candidates);
      case RANDOM -> candidates.get(ThreadLocalRandom.current().nextInt(candidates.size()));
      case STICKY -> sticky(candidates);
      case WEIGHTED_RANDOM -> weighted(candidates, ThreadLocalRandom.current().nextDouble());
    });
  }

  /** The instance where {@code point} (in [0, 1)) falls among the weights laid end to end. */
  static ServiceInstance weighted(List<ServiceInstance> candidates, double point) {
    double total = 0;
    for (ServiceInstance instance : candidates) {
      total += weightOf(instance);
    }
    if (total <= 0) {
      return candidates.get((int) (point * candidates.size()));
    }
    double at = point * total;
    for (ServiceInstance instance : candidates) {
      at -= weightOf(instance);
      if (at < 0) {
        return instance;
      }
    }
    return candidates.get(candidates.size() - 1); // rounding at the very end
  }

  static double weightOf(ServiceInstance instance) {
    Object weight = instance.payload().get("weight");
    if (weight instanceof Number number && Double.isFinite(number.doubleValue())) {
      return Math.max(0, number.doubleValue());
    }
    return 1;
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
