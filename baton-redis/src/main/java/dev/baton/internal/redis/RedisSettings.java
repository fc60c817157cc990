package dev.baton.internal.redis;

import java.time.Duration;

/** A Redis client's settings, checked by the builder. */
public record RedisSettings(
    String uri, String user, char[] password, boolean tls, java.nio.file.Path trustStore,
    String trustStorePassword, Duration connectTimeout,
    Duration commandTimeout, Duration leaseTtl, Duration renewEvery, Duration waiterLease) {

  /** What {@code validUntil()} keeps back for clocks running at different rates: 1% of the TTL plus 2 ms. */
  public Duration driftMargin() {
    return driftMargin(leaseTtl);
  }

  /** What {@code validUntil()} keeps back of a lease of {@code ttl}: 1% plus 2 ms. */
  public static Duration driftMargin(Duration ttl) {
    // Plain arithmetic: Duration.dividedBy goes through BigDecimal, and every grant asks.
    return Duration.ofNanos(ttl.toNanos() / 100 + 2_000_000);
  }

  /** How often a waiter refreshes its place and looks again, if no release wakes it. */
  public Duration recheckEvery() {
    return waiterLease.dividedBy(3);
  }
}
