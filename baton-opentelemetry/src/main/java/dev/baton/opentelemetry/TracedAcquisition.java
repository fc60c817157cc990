package dev.baton.opentelemetry;

import dev.baton.BatonObserver;
import dev.baton.WaitTimeoutException;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import java.util.concurrent.CompletionException;

/** One acquisition's spans: its wait, then its hold. */
final class TracedAcquisition implements BatonObserver.Acquisition {
  private final Tracer tracer;
  private final Context parent;
  private final Attributes attributes;
  private final Span wait;
  private volatile Span hold;

  TracedAcquisition(Tracer tracer, Context parent, Attributes attributes, Span wait) {
    this.tracer = tracer;
    this.parent = parent;
    this.attributes = attributes;
    this.wait = wait;
  }

  @Override
  public void granted(BatonObserver.Grant grant, long fencingToken) {
    String kind = TracingObserver.lowerDashed(grant);
    wait.setAttribute(TracingObserver.OUTCOME, "acquired")
        .setAttribute(TracingObserver.GRANT, kind)
        .setAttribute(TracingObserver.FENCING_TOKEN, fencingToken);
    wait.end();
    hold = tracer.spanBuilder(TracingObserver.HOLD_SPAN).setParent(parent).setAllAttributes(attributes)
        .setAttribute(TracingObserver.GRANT, kind)
        .setAttribute(TracingObserver.FENCING_TOKEN, fencingToken)
        .addLink(wait.getSpanContext())
        .startSpan();
  }

  @Override
  public void failed(Throwable cause) {
    Throwable error = cause instanceof CompletionException && cause.getCause() != null ? cause.getCause() : cause;
    wait.setAttribute(TracingObserver.OUTCOME,
        error == null || error instanceof WaitTimeoutException ? "timeout" : "error");
    if (error != null) {
      // The caller got an exception: the wait failed, whether it timed out or broke.
      wait.recordException(error);
      wait.setStatus(StatusCode.ERROR, String.valueOf(error.getMessage()));
    }
    wait.end();
  }

  @Override
  public void leaseLost(BatonObserver.Loss cause) {
    Span span = hold;
    if (span == null) {
      return;
    }
    span.addEvent(TracingObserver.LEASE_EVENT, Attributes.of(TracingObserver.LEASE_STATE, cause.name()));
    if (cause == BatonObserver.Loss.LOST) {
      span.setStatus(StatusCode.ERROR, "lease lost");
      span.end();
    }
  }

  @Override
  public void leaseRestored() {
    Span span = hold;
    if (span != null) {
      span.addEvent(TracingObserver.LEASE_EVENT, Attributes.of(TracingObserver.LEASE_STATE, "HELD"));
    }
  }

  @Override
  public void released() {
    Span span = hold;
    if (span != null) {
      span.end();
    }
  }
}
