package dev.baton.opentelemetry;

import dev.baton.config.ConfigCenter;
import dev.baton.config.ConfigListener;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Tracer;
import java.util.Objects;

/**
 * Records a span {@value #CHANGE_SPAN} per config change a config center's listeners hear (each
 * real change once, including those written by other clients) [{@code baton.config.prefix},
 * {@code baton.config.key}, {@code baton.config.change} = created|updated|deleted]. A root span:
 * it is delivered on the client's event thread, in no request. Values are not recorded: config
 * often holds secrets.
 */
public final class ConfigTracing {
  public static final String CHANGE_SPAN = "baton.config.change";
  public static final AttributeKey<String> PREFIX = AttributeKey.stringKey("baton.config.prefix");
  public static final AttributeKey<String> KEY = AttributeKey.stringKey("baton.config.key");
  public static final AttributeKey<String> CHANGE = AttributeKey.stringKey("baton.config.change");

  private ConfigTracing() {}

  /** Starts recording; returns the listener, to remove with {@code config.removeListener}. */
  public static ConfigListener bind(ConfigCenter config, String prefix, OpenTelemetry openTelemetry) {
    Objects.requireNonNull(config, "config");
    Tracer tracer = Objects.requireNonNull(openTelemetry, "openTelemetry").getTracer(TracingObserver.INSTRUMENTATION_SCOPE);
    ConfigListener listener = (key, oldValue, newValue) -> tracer.spanBuilder(CHANGE_SPAN).setNoParent()
        .setAttribute(PREFIX, prefix)
        .setAttribute(KEY, key)
        .setAttribute(CHANGE, oldValue == null ? "created" : newValue == null ? "deleted" : "updated")
        .startSpan().end();
    config.addListener(listener, Runnable::run);
    return listener;
  }
}
