package dev.baton.opentelemetry;

import dev.baton.BatonObserver;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link BatonObserver} that records OpenTelemetry spans. Give it to the client's builder:
 *
 * <pre>{@code
 * Baton baton = Baton.builder().connectString("zk:2181")
 *     .observer(new TracingObserver(openTelemetry)).build();
 * }</pre>
 *
 * <p>Spans (attributes in brackets):
 * <ul>
 *   <li>{@value #ACQUIRE_SPAN}: the wait, from the call to the grant or the failure, a child of
 *       the span current on the calling thread [{@code baton.backend}, {@code baton.recipe},
 *       {@code baton.path}, {@code baton.outcome} = acquired|timeout|error, and once granted
 *       {@code baton.grant} and {@code baton.fencing_token}]. Status ERROR when the acquisition
 *       failed with an exception (including {@code acquire}'s timeout); a {@code tryAcquire} that
 *       simply found the lock busy is no error.
 *   <li>{@value #HOLD_SPAN}: the hold, from the grant to the release or the loss, a child of the
 *       same caller's span and linked to its wait [the same attributes]. An event {@value
 *       #LEASE_EVENT} [{@code baton.lease.state} = SUSPECT|HELD|LOST] each time the lease stops or
 *       starts again being trusted; a LOST lease ends the span with status ERROR.
 *   <li>{@value #LEADERSHIP_SPAN}: a leadership term, from gained to lost, a root span (it starts
 *       on the client's event thread, in no request) [{@code baton.recipe}, {@code baton.path}].
 * </ul>
 * Semaphores and Redis clients ({@code RedisBaton.Builder.observer}) record the lock spans too.
 * {@link ConfigTracing} adds a span per config change. Spans are started and ended on the
 * threads that see the events; nothing here blocks or waits for an export.
 */
public final class TracingObserver implements BatonObserver {
  /** The instrumentation scope the tracer is taken under. */
  public static final String INSTRUMENTATION_SCOPE = "dev.baton";
  public static final String ACQUIRE_SPAN = "baton.lock.acquire";
  public static final String HOLD_SPAN = "baton.lock.hold";
  public static final String LEADERSHIP_SPAN = "baton.leadership";
  public static final String LEASE_EVENT = "baton.lease.state";

  public static final AttributeKey<String> BACKEND = AttributeKey.stringKey("baton.backend");
  public static final AttributeKey<String> RECIPE = AttributeKey.stringKey("baton.recipe");
  public static final AttributeKey<String> PATH = AttributeKey.stringKey("baton.path");
  public static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("baton.outcome");
  public static final AttributeKey<String> GRANT = AttributeKey.stringKey("baton.grant");
  public static final AttributeKey<Long> FENCING_TOKEN = AttributeKey.longKey("baton.fencing_token");
  public static final AttributeKey<String> LEASE_STATE = AttributeKey.stringKey("baton.lease.state");

  private final Tracer tracer;
  // One open term per election this client takes part in; an election has one leader at a time.
  private final Map<String, Span> terms = new ConcurrentHashMap<>();

  /** Records spans with {@code openTelemetry}'s tracer, under {@value #INSTRUMENTATION_SCOPE}. */
  public TracingObserver(OpenTelemetry openTelemetry) {
    this.tracer = Objects.requireNonNull(openTelemetry, "openTelemetry").getTracer(INSTRUMENTATION_SCOPE);
  }

  @Override
  public Acquisition acquisitionStarted(String backend, String recipe, String path) {
    // The caller's context is current only here, on its thread: the outcome comes on others.
    Context parent = Context.current();
    Attributes attributes = Attributes.of(BACKEND, backend, RECIPE, recipe, PATH, path);
    Span wait = tracer.spanBuilder(ACQUIRE_SPAN).setParent(parent).setAllAttributes(attributes).startSpan();
    return new TracedAcquisition(tracer, parent, attributes, wait);
  }

  @Override
  public void leadershipGained(String recipe, String path) {
    Span term = tracer.spanBuilder(LEADERSHIP_SPAN).setNoParent()
        .setAttribute(RECIPE, recipe).setAttribute(PATH, path).startSpan();
    Span previous = terms.put(key(recipe, path), term);
    if (previous != null) {
      previous.end(); // a loss never told must not leave a span open for ever
    }
  }

  @Override
  public void leadershipLost(String recipe, String path) {
    Span term = terms.remove(key(recipe, path));
    if (term != null) {
      term.end();
    }
  }

  @Override
  public String toString() {
    return "TracingObserver";
  }

  private static String key(String recipe, String path) {
    return recipe + ' ' + path;
  }

  static String lowerDashed(Enum<?> value) {
    return value.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
