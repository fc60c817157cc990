package dev.baton.spring.boot;

import dev.baton.jdbc.JdbcBaton;

/**
 * Adjusts the {@link JdbcBaton.Builder} after the {@code baton.jdbc.*} properties are applied and
 * before the client connects. Every bean of this type is applied, in {@code @Order}.
 */
@FunctionalInterface
public interface JdbcBatonBuilderCustomizer {
  void customize(JdbcBaton.Builder builder);
}
