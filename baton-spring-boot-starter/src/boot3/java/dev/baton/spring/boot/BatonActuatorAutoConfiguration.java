package dev.baton.spring.boot;

import dev.baton.Baton;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.autoconfigure.info.ConditionalOnEnabledInfoContributor;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * With Actuator present: a health indicator ({@code baton}, switched off by {@code
 * management.health.baton.enabled=false}) and an info contributor ({@code
 * management.info.baton.enabled}) for the ZooKeeper client.
 */
@AutoConfiguration(after = BatonAutoConfiguration.class)
@ConditionalOnClass({HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class})
@ConditionalOnBean(Baton.class)
public class BatonActuatorAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean(name = "batonHealthIndicator")
  @ConditionalOnEnabledHealthIndicator("baton")
  public BatonHealthIndicator batonHealthIndicator(Baton baton) {
    return new BatonHealthIndicator(baton);
  }

  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnEnabledInfoContributor("baton")
  public BatonInfoContributor batonInfoContributor(Baton baton, BatonProperties properties) {
    return new BatonInfoContributor(baton, properties);
  }
}
