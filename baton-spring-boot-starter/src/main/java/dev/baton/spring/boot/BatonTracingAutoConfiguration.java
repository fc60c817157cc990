package dev.baton.spring.boot;

import dev.baton.opentelemetry.TracingObserver;
import io.opentelemetry.api.OpenTelemetry;
import java.util.Optional;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * With {@code baton-opentelemetry} on the classpath and an {@link OpenTelemetry} bean in the
 * context, the auto-configured {@code Baton} and {@code RedisBaton} record spans ({@link
 * TracingObserver} lists them): each acquisition's wait and hold as children of the caller's span,
 * lease losses as events, leadership terms. Alongside the metrics, when both are present.
 * {@code baton.tracing.enabled=false} turns it off.
 */
@AutoConfiguration(before = {BatonAutoConfiguration.class, BatonRedisAutoConfiguration.class},
    // OpenTelemetry's auto-configuration: Boot 3.5's, then Boot 4's.
    afterName = {"org.springframework.boot.actuate.autoconfigure.opentelemetry.OpenTelemetryAutoConfiguration",
        "org.springframework.boot.opentelemetry.autoconfigure.OpenTelemetrySdkAutoConfiguration"})
@ConditionalOnClass({OpenTelemetry.class, TracingObserver.class})
@ConditionalOnProperty(prefix = "baton.tracing", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(BatonProperties.class)
public class BatonTracingAutoConfiguration {

  // A customizer looked up when the client is built, as the metrics' is: the OpenTelemetry bean
  // may be defined after this runs. It also reaches the client spring.config.import=baton: built.
  @Bean
  public BatonBuilderCustomizer batonTracingCustomizer(ObjectProvider<OpenTelemetry> openTelemetry) {
    return new ObserverCustomizer(() -> Optional.ofNullable(openTelemetry.getIfAvailable()).map(TracingObserver::new));
  }
}
