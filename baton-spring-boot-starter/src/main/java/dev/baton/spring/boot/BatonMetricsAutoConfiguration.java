package dev.baton.spring.boot;

import dev.baton.micrometer.MicrometerObserver;
import dev.baton.micrometer.PathTags;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Optional;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * With {@code baton-micrometer} on the classpath and a {@link MeterRegistry} in the context (as
 * Actuator makes one), the auto-configured {@code Baton} and {@code RedisBaton} record their lock
 * and connection meters ({@link MicrometerObserver} lists them), tags bounded by {@code baton.metrics.path-depth} and
 * {@code baton.metrics.max-path-tags}. {@code baton.metrics.enabled=false} turns it off.
 */
@AutoConfiguration(before = {BatonAutoConfiguration.class, BatonRedisAutoConfiguration.class},
    // The registry's auto-configuration: Boot 3.5's, then Boot 4's (it moved to a module of its own).
    afterName = {"org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"})
@ConditionalOnClass({MeterRegistry.class, MicrometerObserver.class})
@ConditionalOnProperty(prefix = "baton.metrics", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(BatonProperties.class)
public class BatonMetricsAutoConfiguration {

  // A customizer rather than a condition on the registry bean: the registry may be defined by
  // the application after this runs; the customizer looks it up when the client is built.
  // An observer-only customizer, so the client spring.config.import=baton: built is observed too.
  @Bean
  public BatonBuilderCustomizer batonMetricsCustomizer(ObjectProvider<MeterRegistry> registry, BatonProperties properties) {
    // The Redis client takes it too (BatonRedisAutoConfiguration), with its own observer.
    return new ObserverCustomizer(() -> Optional.ofNullable(registry.getIfAvailable()).map(meters -> observer(meters, properties)));
  }

  static MicrometerObserver observer(MeterRegistry meters, BatonProperties properties) {
    return new MicrometerObserver(meters,
        new PathTags(properties.getMetrics().getPathDepth(), properties.getMetrics().getMaxPathTags()));
  }
}
