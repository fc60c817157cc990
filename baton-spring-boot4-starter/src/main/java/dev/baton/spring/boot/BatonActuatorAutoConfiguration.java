package dev.baton.spring.boot;

import dev.baton.Baton;
import org.springframework.boot.actuate.autoconfigure.info.ConditionalOnEnabledInfoContributor;
import org.springframework.boot.actuate.info.InfoContributor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * With Boot 4's health module present ({@code spring-boot-health}, which Actuator brings): a health
 * indicator ({@code baton}, switched off by {@code management.health.baton.enabled=false}); with
 * Actuator: an info contributor ({@code management.info.baton.enabled}) for the ZooKeeper client.
 * Boot 4 keeps the two in separate modules, so each has its own condition.
 */
@AutoConfiguration(after = BatonAutoConfiguration.class)
@ConditionalOnBean(Baton.class)
public class BatonActuatorAutoConfiguration {

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class})
  static class OnHealth {
    @Bean
    @ConditionalOnMissingBean(name = "batonHealthIndicator")
    @ConditionalOnEnabledHealthIndicator("baton")
    BatonHealthIndicator batonHealthIndicator(Baton baton) {
      return new BatonHealthIndicator(baton);
    }
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({InfoContributor.class, ConditionalOnEnabledInfoContributor.class})
  static class OnInfo {
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnEnabledInfoContributor("baton")
    BatonInfoContributor batonInfoContributor(Baton baton, BatonProperties properties) {
      return new BatonInfoContributor(baton, properties);
    }
  }
}
