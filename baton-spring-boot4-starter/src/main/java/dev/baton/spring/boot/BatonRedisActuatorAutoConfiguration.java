package dev.baton.spring.boot;

import dev.baton.redis.RedisBaton;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * With Boot 4's health module present ({@code spring-boot-health}, which Actuator brings): a
 * health indicator for the Redis client ({@code batonRedis}, switched off
 * by {@code management.health.baton-redis.enabled=false}).
 */
@AutoConfiguration(after = BatonRedisAutoConfiguration.class)
@ConditionalOnClass({HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class, RedisBaton.class})
@ConditionalOnBean(RedisBaton.class)
public class BatonRedisActuatorAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean(name = "batonRedisHealthIndicator")
  @ConditionalOnEnabledHealthIndicator("baton-redis")
  public BatonRedisHealthIndicator batonRedisHealthIndicator(RedisBaton redis) {
    return new BatonRedisHealthIndicator(redis);
  }
}
