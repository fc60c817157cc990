package dev.baton.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.config.ConfigCenter;
import dev.baton.embedded.EmbeddedRedis;
import dev.baton.opentelemetry.ConfigTracing;
import dev.baton.opentelemetry.TracingObserver;
import dev.baton.redis.RedisBaton;
import dev.baton.testkit.ZooKeeperExtension;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.List;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The starter's tracing: spans when an OpenTelemetry bean is present, alongside the metrics, on both clients. */
class BatonTracingAutoConfigurationTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  @RegisterExtension
  static final ZooKeeperExtension zk = new ZooKeeperExtension();
  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(BatonAutoConfiguration.class, BatonRedisAutoConfiguration.class,
          BatonMetricsAutoConfiguration.class, BatonTracingAutoConfiguration.class))
      .withBean(OpenTelemetry.class, () -> OpenTelemetrySdk.builder()
          .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build())
          .build());

  private List<SpanData> spans(String name) {
    return exporter.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).toList();
  }

  @Test
  void openTelemetryAndMeterRegistryPresent_lockTracedUnderTheCallersSpanAndMetered() {
    runner.withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
        .withPropertyValues("baton.connect-string=" + zk.connectString()).run(context -> {
          Span request = context.getBean(OpenTelemetry.class).getTracer("test").spanBuilder("request").startSpan();
          try (Scope ignored = request.makeCurrent()) {
            context.getBean(Baton.class).mutex("/traced/orders/42").acquire(WAIT).close();
          }

          await().atMost(WAIT).until(() -> spans(TracingObserver.HOLD_SPAN).size() == 1);
          assertThat(spans(TracingObserver.ACQUIRE_SPAN)).singleElement().satisfies(wait -> {
            assertThat(wait.getParentSpanId()).isEqualTo(request.getSpanContext().getSpanId());
            assertThat(wait.getAttributes().get(TracingObserver.PATH)).isEqualTo("/traced/orders/42");
          });
          assertThat(context.getBean(SimpleMeterRegistry.class).find("baton.lock.acquire").timer())
              .as("the metrics still recorded beside the spans").isNotNull()
              .extracting(t -> t.count()).isEqualTo(1L);
        });
  }

  @Test
  void configCenterBean_aSpanPerChangeDelivered() {
    runner.withConfiguration(AutoConfigurations.of(BatonConfigAutoConfiguration.class))
        .withPropertyValues("baton.connect-string=" + zk.connectString(), "baton.config.root=/config/spans").run(context -> {
          context.getBean(ConfigCenter.class).set("shop.greeting", "hello");

          await().atMost(WAIT).until(() -> spans(ConfigTracing.CHANGE_SPAN).size() == 1);
          assertThat(spans(ConfigTracing.CHANGE_SPAN).get(0).getAttributes().get(ConfigTracing.KEY)).isEqualTo("shop.greeting");
        });
  }

  @Test
  void tracingDisabled_noSpans() {
    runner.withPropertyValues("baton.connect-string=" + zk.connectString(), "baton.tracing.enabled=false").run(context -> {
      context.getBean(Baton.class).mutex("/traced/off").acquire(WAIT).close();
      assertThat(exporter.getFinishedSpanItems()).isEmpty();
    });
  }

  @Test
  void redisClient_tracedAndMeteredToo() {
    try (EmbeddedRedis redis = EmbeddedRedis.start()) {
      runner.withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
          .withPropertyValues("baton.redis.uri=" + redis.uri()).run(context -> {
            context.getBean(RedisBaton.class).mutex("traced:orders").acquire(WAIT).close();

            await().atMost(WAIT).until(() -> spans(TracingObserver.HOLD_SPAN).size() == 1);
            assertThat(spans(TracingObserver.HOLD_SPAN).get(0).getAttributes().get(TracingObserver.BACKEND)).isEqualTo("redis");
            assertThat(context.getBean(SimpleMeterRegistry.class).find("baton.lock.acquire").timer()).isNotNull();
          });
    }
  }

  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration({BatonAutoConfiguration.class, BatonMetricsAutoConfiguration.class, BatonTracingAutoConfiguration.class})
  static class AppWithImportMetricsAndTracing {
    static final InMemorySpanExporter EXPORTER = InMemorySpanExporter.create();

    @Bean
    SimpleMeterRegistry meters() {
      return new SimpleMeterRegistry();
    }

    @Bean
    OpenTelemetry openTelemetry() {
      return OpenTelemetrySdk.builder()
          .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(EXPORTER)).build())
          .build();
    }
  }

  @Test
  void configImportClientBecomesTheBean_tracedAndMeteredBoth() {
    try (Baton admin = Baton.connect(zk.connectString()); ConfigCenter config = ConfigCenter.open(admin, "/config/traced")) {
      config.set("shop.greeting", "hello");
    }
    try (ConfigurableApplicationContext context = new SpringApplicationBuilder(AppWithImportMetricsAndTracing.class)
        .web(WebApplicationType.NONE).properties("spring.config.import=baton:/config/traced",
            "baton.connect-string=" + zk.connectString()).run()) {
      assertThat(context.getEnvironment().getProperty("shop.greeting")).isEqualTo("hello");

      context.getBean(Baton.class).mutex("/traced/imported").acquire(WAIT).close();

      await().atMost(WAIT).until(() -> AppWithImportMetricsAndTracing.EXPORTER.getFinishedSpanItems().stream()
          .anyMatch(s -> s.getName().equals(TracingObserver.HOLD_SPAN)
              && "/traced/imported".equals(s.getAttributes().get(TracingObserver.PATH))));
      assertThat(context.getBean(SimpleMeterRegistry.class).find("baton.lock.acquire").timer())
          .as("the metrics still recorded beside the spans").isNotNull();
    }
  }
}
