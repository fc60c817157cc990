package dev.baton.micrometer;

import dev.baton.config.ConfigCenter;
import dev.baton.config.ConfigListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Objects;

/**
 * Counts a config center's updates as {@value #UPDATES} [prefix, change = created|updated|deleted],
 * as its listeners hear them (each real change once, including those written by other clients).
 */
public final class ConfigMetrics {
  public static final String UPDATES = "baton.config.updates";

  private ConfigMetrics() {}

  /** Starts counting; returns the listener, to remove with {@code config.removeListener}. */
  public static ConfigListener bind(ConfigCenter config, String prefix, MeterRegistry registry) {
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(registry, "registry");
    ConfigListener listener = (key, oldValue, newValue) -> Counter.builder(UPDATES)
        .description("Config keys changed, as the config center's listeners heard it")
        .tags("prefix", prefix, "change", oldValue == null ? "created" : newValue == null ? "deleted" : "updated")
        .register(registry).increment();
    config.addListener(listener, Runnable::run);
    return listener;
  }
}
