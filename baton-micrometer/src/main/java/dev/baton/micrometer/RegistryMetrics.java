package dev.baton.micrometer;

import dev.baton.discovery.ServiceRegistry;
import dev.baton.discovery.ServiceView;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Objects;

/**
 * Counts a service registry's changes as {@value #CHANGES} [kind = services|instances, service]:
 * the set of services (service {@code *}), and the instances of each watched service, its name
 * bounded as paths are ({@link PathTags}).
 */
public final class RegistryMetrics {
  public static final String CHANGES = "baton.registry.changes";

  private RegistryMetrics() {}

  /** Counts changes of the set of services. */
  public static void bindServices(ServiceRegistry registry, MeterRegistry meters) {
    Objects.requireNonNull(registry, "registry");
    Counter services = Counter.builder(CHANGES).description("Changes seen by the service registry")
        .tags("kind", "services", "service", "*").register(meters);
    registry.addServicesListener(names -> services.increment(), Runnable::run);
  }

  /** Counts changes of {@code view}'s instances. */
  public static void bindView(ServiceView view, String service, PathTags names, MeterRegistry meters) {
    Objects.requireNonNull(view, "view");
    String tag = names.of("/" + service);
    Counter instances = Counter.builder(CHANGES).description("Changes seen by the service registry")
        .tags("kind", "instances", "service", tag.equals(PathTags.OTHER) ? tag : tag.substring(1)).register(meters);
    view.addListener(list -> instances.increment(), Runnable::run);
  }
}
