/**
 * OpenTelemetry tracing for Baton: {@link dev.baton.opentelemetry.TracingObserver} records each
 * lock acquisition's wait and hold, lease losses and leadership terms as spans;
 * {@link dev.baton.opentelemetry.ConfigTracing} a span per config change.
 */
package dev.baton.opentelemetry;
