package dev.baton.spring.boot;

import dev.baton.redis.RedisBaton;

/**
 * Adjusts the {@link RedisBaton.Builder} after the {@code baton.redis.*} properties are applied and
 * before the client connects (an observer, as the metrics auto-configuration adds). Every bean of
 * this type is applied, in {@code @Order}.
 */
@FunctionalInterface
public interface RedisBatonBuilderCustomizer {
  void customize(RedisBaton.Builder builder);
}
