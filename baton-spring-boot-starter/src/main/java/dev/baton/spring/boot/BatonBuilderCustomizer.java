package dev.baton.spring.boot;

import dev.baton.Baton;

/**
 * Adjusts the {@link Baton.Builder} after the {@code baton.*} properties are applied and before the
 * client connects: an ACL provider, an event executor, a retry policy. Every bean of this type is
 * applied, in {@code @Order}.
 */
@FunctionalInterface
public interface BatonBuilderCustomizer {
  void customize(Baton.Builder builder);
}
