package dev.baton.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.embedded.EmbeddedRedis;
import dev.baton.lock.Lease;
import dev.baton.redis.RedisBaton;
import dev.baton.testkit.CloseAfterEach;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The same spans from a Redis client as from a ZooKeeper one, named as the Redis backend's. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RedisTracingObserverTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static EmbeddedRedis redis;
  @RegisterExtension
  final CloseAfterEach resources = new CloseAfterEach();
  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private final OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
      .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build())
      .build();

  @BeforeAll
  static void startServer() {
    redis = EmbeddedRedis.start();
  }

  @AfterAll
  static void stopServer() {
    redis.close();
  }

  @AfterEach
  void closeSdk() {
    otel.close();
  }

  private List<SpanData> spans(String name) {
    return exporter.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).toList();
  }

  @Test
  void redisMutex_waitAndHoldUnderCallersSpan_withTheRedisBackendAndToken() {
    RedisBaton baton = resources.closing(RedisBaton.builder().uri(redis.uri()).observer(new TracingObserver(otel)).build());
    Span request = otel.getTracer("test").spanBuilder("request").startSpan();
    Lease lease;
    try (Scope ignored = request.makeCurrent()) {
      lease = baton.mutex("shop:orders:1").acquire(WAIT);
    }
    lease.close();

    await().atMost(WAIT).until(() -> spans(TracingObserver.HOLD_SPAN).size() == 1);
    List<SpanData> both = List.of(spans(TracingObserver.ACQUIRE_SPAN).get(0), spans(TracingObserver.HOLD_SPAN).get(0));
    assertThat(both).allSatisfy(span -> {
      assertThat(span.getParentSpanId()).isEqualTo(request.getSpanContext().getSpanId());
      assertThat(span.getAttributes().get(TracingObserver.BACKEND)).isEqualTo("redis");
      assertThat(span.getAttributes().get(TracingObserver.PATH)).isEqualTo("shop:orders:1");
      assertThat(span.getAttributes().get(TracingObserver.FENCING_TOKEN)).isEqualTo(lease.fencingToken());
    });
  }
}
