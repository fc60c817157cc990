package dev.baton.spring.boot;

import dev.baton.jdbc.JdbcBaton;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * With Boot 4's health module present ({@code spring-boot-health}, which Actuator brings): a
 * health indicator for the SQL client ({@code batonJdbc}, switched off
 * by {@code management.health.baton-jdbc.enabled=false}).
 */
@AutoConfiguration(after = BatonJdbcAutoConfiguration.class)
@ConditionalOnClass({HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class, JdbcBaton.class})
@ConditionalOnBean(JdbcBaton.class)
public class BatonJdbcActuatorAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean(name = "batonJdbcHealthIndicator")
  @ConditionalOnEnabledHealthIndicator("baton-jdbc")
  public BatonJdbcHealthIndicator batonJdbcHealthIndicator(JdbcBaton jdbc) {
    return new BatonJdbcHealthIndicator(jdbc);
  }
}
