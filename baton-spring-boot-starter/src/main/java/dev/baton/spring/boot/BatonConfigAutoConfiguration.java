package dev.baton.spring.boot;

import dev.baton.Baton;
import dev.baton.config.ConfigCenter;
import dev.baton.config.ConfigOptions;
import dev.baton.micrometer.ConfigMetrics;
import dev.baton.opentelemetry.ConfigTracing;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
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
 * A {@link ConfigCenter} on the ZooKeeper client, under {@code baton.config.root}, when {@code
 * baton-config} is on the classpath, a {@code Baton} bean exists and the application defines no
 * config center of its own. It loads while the context starts (from the ensemble, or from {@code
 * baton.config.snapshot-file} if the ensemble is down and the file exists) and is closed with the
 * context. With {@code baton-micrometer} and a {@link MeterRegistry}, its updates are counted
 * ({@link ConfigMetrics}) unless {@code baton.metrics.enabled=false}; with {@code
 * baton-opentelemetry} and an {@link OpenTelemetry} bean, each is a span ({@link ConfigTracing})
 * unless {@code baton.tracing.enabled=false}.
 */
@AutoConfiguration(after = {BatonAutoConfiguration.class, BatonMetricsAutoConfiguration.class})
@ConditionalOnClass(ConfigCenter.class)
@ConditionalOnBean(Baton.class)
@ConditionalOnProperty(prefix = "baton.config", name = "root")
@EnableConfigurationProperties(BatonConfigProperties.class)
public class BatonConfigAutoConfiguration {

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public ConfigCenter batonConfigCenter(Baton baton, BatonConfigProperties properties) {
    ConfigOptions options = ConfigOptions.defaults();
    if (properties.getSnapshotFile() != null) {
      options = options.withSnapshotFile(properties.getSnapshotFile());
    }
    if (properties.getHistoryVersions() > 0) {
      options = options.withHistory(properties.getHistoryVersions());
    }
    return ConfigCenter.open(baton, properties.getRoot(), options);
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({MeterRegistry.class, ConfigMetrics.class})
  @ConditionalOnProperty(prefix = "baton.metrics", name = "enabled", matchIfMissing = true)
  static class OnMicrometer {
    // Bound once every singleton exists, so a registry or config center the application defines
    // itself is found too.
    @Bean
    SmartInitializingSingleton batonConfigMetrics(ObjectProvider<ConfigCenter> configs,
        ObjectProvider<MeterRegistry> registry) {
      return () -> configs.ifUnique(config ->
          registry.ifAvailable(meters -> ConfigMetrics.bind(config, config.prefix(), meters)));
    }
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({OpenTelemetry.class, ConfigTracing.class})
  @ConditionalOnProperty(prefix = "baton.tracing", name = "enabled", matchIfMissing = true)
  static class OnOpenTelemetry {
    // Bound once every singleton exists, as the metrics are.
    @Bean
    SmartInitializingSingleton batonConfigTracing(ObjectProvider<ConfigCenter> configs,
        ObjectProvider<OpenTelemetry> openTelemetry) {
      return () -> configs.ifUnique(config ->
          openTelemetry.ifAvailable(otel -> ConfigTracing.bind(config, config.prefix(), otel)));
    }
  }
}
