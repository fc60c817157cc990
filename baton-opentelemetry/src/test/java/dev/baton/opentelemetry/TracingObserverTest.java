package dev.baton.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.config.ConfigCenter;
import dev.baton.leader.LeaderLatch;
import dev.baton.lock.AcquireTimeoutException;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.Mutex;
import dev.baton.lock.Semaphore;
import dev.baton.testkit.FaultProxy;
import dev.baton.testkit.ZooKeeperExtension;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Locks, a lease loss, an election and config writes against an embedded ZooKeeper, then the spans
 * the SDK's in-memory exporter holds: their names, parents, attributes and events.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class TracingObserverTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  @RegisterExtension
  static final ZooKeeperExtension zk = new ZooKeeperExtension();
  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  // A simple processor exports each span as it ends: a span in the exporter is a span that ended.
  private final OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
      .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build())
      .build();

  @AfterEach
  void closeSdk() {
    otel.close();
  }

  private <T extends AutoCloseable> T closing(T resource) {
    return zk.closing(resource);
  }

  private Baton traced(String connectString, Duration session) {
    return closing(Baton.builder().connectString(connectString).sessionTimeout(session)
        .observer(new TracingObserver(otel)).build());
  }

  private List<SpanData> spans(String name) {
    return exporter.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).toList();
  }

  private SpanData only(String name) {
    List<SpanData> spans = spans(name);
    assertThat(spans).as(name).hasSize(1);
    return spans.get(0);
  }

  private static void assertChildOf(SpanData span, SpanContext parent) {
    assertThat(span.getTraceId()).isEqualTo(parent.getTraceId());
    assertThat(span.getParentSpanId()).isEqualTo(parent.getSpanId());
  }

  private static <T> T attribute(SpanData span, AttributeKey<T> key) {
    return span.getAttributes().get(key);
  }

  @Test
  void acquireUnderCallersSpan_waitAndHoldAreItsChildren_holdEndsAtRelease() {
    Baton baton = traced(zk.connectString(), Duration.ofSeconds(10));
    Span request = otel.getTracer("test").spanBuilder("request").startSpan();
    Lease lease;
    try (Scope ignored = request.makeCurrent()) {
      lease = baton.mutex("/shop/orders/1").acquire(WAIT);
    }

    SpanData wait = only(TracingObserver.ACQUIRE_SPAN);
    assertChildOf(wait, request.getSpanContext());
    assertThat(attribute(wait, TracingObserver.BACKEND)).isEqualTo("zookeeper");
    assertThat(attribute(wait, TracingObserver.RECIPE)).isEqualTo("mutex");
    assertThat(attribute(wait, TracingObserver.PATH)).isEqualTo("/shop/orders/1");
    assertThat(attribute(wait, TracingObserver.OUTCOME)).isEqualTo("acquired");
    assertThat(attribute(wait, TracingObserver.GRANT)).isEqualTo("queued");
    assertThat(attribute(wait, TracingObserver.FENCING_TOKEN)).isEqualTo(lease.fencingToken());
    assertThat(spans(TracingObserver.HOLD_SPAN)).as("still held: the hold has not ended").isEmpty();

    lease.close();
    request.end();

    await().atMost(WAIT).until(() -> spans(TracingObserver.HOLD_SPAN).size() == 1);
    SpanData hold = only(TracingObserver.HOLD_SPAN);
    assertChildOf(hold, request.getSpanContext());
    assertThat(hold.getLinks()).as("linked to its wait").singleElement()
        .satisfies(link -> assertThat(link.getSpanContext()).isEqualTo(wait.getSpanContext()));
    assertThat(attribute(hold, TracingObserver.BACKEND)).isEqualTo("zookeeper");
    assertThat(attribute(hold, TracingObserver.RECIPE)).isEqualTo("mutex");
    assertThat(attribute(hold, TracingObserver.PATH)).isEqualTo("/shop/orders/1");
    assertThat(attribute(hold, TracingObserver.FENCING_TOKEN)).isEqualTo(lease.fencingToken());
    assertThat(attribute(hold, TracingObserver.GRANT)).isEqualTo("queued");
    assertThat(hold.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
    assertThat(hold.getEvents()).isEmpty();
  }

  @Test
  void acquireAsync_grantedOnAnotherThread_waitStillChildOfTheCallersSpan() throws Exception {
    Baton baton = traced(zk.connectString(), Duration.ofSeconds(10));
    Lease theirs = closing(Baton.connect(zk.connectString())).mutex("/shop/async").acquire(WAIT);
    Span request = otel.getTracer("test").spanBuilder("request").startSpan();
    CompletableFuture<Lease> future;
    try (Scope ignored = request.makeCurrent()) {
      future = baton.mutex("/shop/async").acquireAsync();
    }
    assertThat(spans(TracingObserver.ACQUIRE_SPAN)).as("still waiting").isEmpty();

    theirs.close();
    Lease lease = future.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    lease.close();

    await().atMost(WAIT).until(() -> spans(TracingObserver.HOLD_SPAN).size() == 1);
    SpanData wait = only(TracingObserver.ACQUIRE_SPAN);
    assertChildOf(wait, request.getSpanContext());
    assertThat(attribute(wait, TracingObserver.FENCING_TOKEN)).isEqualTo(lease.fencingToken());
    assertChildOf(only(TracingObserver.HOLD_SPAN), request.getSpanContext());
  }

  @Test
  void busyLock_tryAcquireTimesOutQuietly_acquireTimeoutIsAnError() {
    Baton baton = traced(zk.connectString(), Duration.ofSeconds(10));
    Lease theirs = closing(Baton.connect(zk.connectString())).mutex("/shop/busy").acquire(WAIT);
    Mutex mutex = baton.mutex("/shop/busy");

    assertThat(mutex.tryAcquire(Duration.ofMillis(100))).isEmpty();
    assertThatThrownBy(() -> mutex.acquire(Duration.ofMillis(100))).isInstanceOf(AcquireTimeoutException.class);
    theirs.close();

    List<SpanData> waits = spans(TracingObserver.ACQUIRE_SPAN);
    assertThat(waits).hasSize(2).allSatisfy(wait -> {
      assertThat(attribute(wait, TracingObserver.OUTCOME)).isEqualTo("timeout");
      assertThat(attribute(wait, TracingObserver.FENCING_TOKEN)).isNull();
      assertThat(wait.getParentSpanContext().isValid()).as("no caller's span: a root").isFalse();
    });
    assertThat(waits.get(0).getStatus().getStatusCode()).as("tryAcquire: an answer, not an error").isEqualTo(StatusCode.UNSET);
    assertThat(waits.get(1).getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(waits.get(1).getEvents()).singleElement()
        .satisfies(event -> assertThat(event.getName()).isEqualTo("exception"));
    assertThat(spans(TracingObserver.HOLD_SPAN)).isEmpty();
  }

  @Test
  void sessionExpiresWhileHeld_holdHasSuspectThenLostEventsAndEndsAsAnError() {
    FaultProxy proxy = closing(FaultProxy.start(zk.address()));
    Baton baton = traced(proxy.connectString(), Duration.ofSeconds(1));
    Lease lease = baton.mutex("/shop/fragile").acquire(WAIT);

    proxy.blackhole();
    await().atMost(WAIT).until(() -> lease.state() == LeaseState.LOST);
    proxy.restore();
    lease.close();

    await().atMost(WAIT).until(() -> spans(TracingObserver.HOLD_SPAN).size() == 1);
    SpanData hold = only(TracingObserver.HOLD_SPAN);
    assertThat(hold.getEvents()).extracting(EventData::getName).containsOnly(TracingObserver.LEASE_EVENT);
    assertThat(hold.getEvents()).extracting(event -> event.getAttributes().get(TracingObserver.LEASE_STATE))
        .containsExactly("SUSPECT", "LOST");
    assertThat(hold.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
  }

  @Test
  void connectionSuspendedThenBack_holdHasSuspectThenHeldEvents_endsAtReleaseWithoutError() {
    FaultProxy proxy = closing(FaultProxy.start(zk.address()));
    // A session long enough to outlive the cut: the lease comes back rather than being lost.
    Baton baton = traced(proxy.connectString(), Duration.ofSeconds(20));
    Lease lease = baton.mutex("/shop/shaky").acquire(WAIT);

    proxy.cut();
    await().atMost(WAIT).until(() -> lease.state() == LeaseState.SUSPECT);
    proxy.restore();
    await().atMost(WAIT).until(() -> lease.state() == LeaseState.HELD);
    lease.close();

    await().atMost(WAIT).until(() -> spans(TracingObserver.HOLD_SPAN).size() == 1);
    SpanData hold = only(TracingObserver.HOLD_SPAN);
    assertThat(hold.getEvents()).extracting(event -> event.getAttributes().get(TracingObserver.LEASE_STATE))
        .containsExactly("SUSPECT", "HELD");
    assertThat(hold.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
  }

  @Test
  void semaphore_waitAndHoldRecordedAsTheSemaphoreRecipe() {
    Baton baton = traced(zk.connectString(), Duration.ofSeconds(10));
    Semaphore semaphore = baton.semaphore("/shop/slots", 2);

    semaphore.acquire(WAIT).close();

    await().atMost(WAIT).until(() -> spans(TracingObserver.HOLD_SPAN).size() == 1);
    assertThat(attribute(only(TracingObserver.ACQUIRE_SPAN), TracingObserver.RECIPE)).isEqualTo("semaphore");
    assertThat(attribute(only(TracingObserver.HOLD_SPAN), TracingObserver.PATH)).isEqualTo("/shop/slots");
  }

  @Test
  void leaderLatch_termIsASpanFromGainedToLost() {
    Baton baton = traced(zk.connectString(), Duration.ofSeconds(10));
    LeaderLatch latch = baton.leaderLatch("/shop/leader", "node-1");
    latch.start();
    assertThat(latch.await(WAIT)).isTrue();
    assertThat(spans(TracingObserver.LEADERSHIP_SPAN)).as("still leading").isEmpty();

    latch.close();

    await().atMost(WAIT).until(() -> spans(TracingObserver.LEADERSHIP_SPAN).size() == 1);
    SpanData term = only(TracingObserver.LEADERSHIP_SPAN);
    assertThat(attribute(term, TracingObserver.RECIPE)).isEqualTo("leader-latch");
    assertThat(attribute(term, TracingObserver.PATH)).isEqualTo("/shop/leader");
    assertThat(term.getParentSpanContext().isValid()).isFalse();
  }

  @Test
  void configWrites_aSpanPerChangeDelivered() {
    Baton baton = closing(Baton.connect(zk.connectString()));
    ConfigCenter config = closing(ConfigCenter.open(baton, "/config"));
    ConfigTracing.bind(config, "/config", otel);

    config.create("db/pool", "10");
    config.update("db/pool", "20");
    config.delete("db/pool");

    await().atMost(WAIT).until(() -> spans(ConfigTracing.CHANGE_SPAN).size() == 3);
    assertThat(spans(ConfigTracing.CHANGE_SPAN)).extracting(span -> attribute(span, ConfigTracing.CHANGE))
        .containsExactly("created", "updated", "deleted");
    assertThat(spans(ConfigTracing.CHANGE_SPAN)).allSatisfy(span -> {
      assertThat(attribute(span, ConfigTracing.KEY)).isEqualTo("db/pool");
      assertThat(attribute(span, ConfigTracing.PREFIX)).isEqualTo("/config");
    });
  }
}
