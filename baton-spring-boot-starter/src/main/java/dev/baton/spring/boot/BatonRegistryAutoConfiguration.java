package dev.baton.spring.boot;

import dev.baton.Baton;
import dev.baton.discovery.ServiceRegistry;
import dev.baton.micrometer.RegistryMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A {@link ServiceRegistry} on the ZooKeeper client, under {@code baton.registry.base}, when {@code
 * baton-discovery} is on the classpath, a {@code Baton} bean exists and the application defines no
 * registry of its own. Closed with the context, which unregisters what it registered. With {@code
 * baton-micrometer} and a {@link MeterRegistry}, changes of the set of services are counted
 * ({@link RegistryMetrics}) unless {@code baton.metrics.enabled=false}.
 */
@AutoConfiguration(after = {BatonAutoConfiguration.class, BatonMetricsAutoConfiguration.class})
@ConditionalOnClass(ServiceRegistry.class)
@ConditionalOnBean(Baton.class)
@ConditionalOnProperty(prefix = "baton.registry", name = "base")
@EnableConfigurationProperties(BatonRegistryProperties.class)
public class BatonRegistryAutoConfiguration {

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public ServiceRegistry batonServiceRegistry(Baton baton, BatonRegistryProperties properties) {
    return ServiceRegistry.open(baton, properties.getBase());
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({MeterRegistry.class, RegistryMetrics.class})
  @ConditionalOnProperty(prefix = "baton.metrics", name = "enabled", matchIfMissing = true)
  static class OnMicrometer {
    @Bean
    SmartInitializingSingleton batonRegistryMetrics(ObjectProvider<ServiceRegistry> registries,
        ObjectProvider<MeterRegistry> registry) {
      return () -> registries.ifUnique(services ->
          registry.ifAvailable(meters -> RegistryMetrics.bindServices(services, meters)));
    }
  }
}
