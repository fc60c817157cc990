package dev.baton.internal.jdbc;

import java.time.Duration;

/**
 * A client's settings, checked by the builder.
 *
 * @param describe how the database is named in messages (the JDBC URL without its parameters)
 * @param host what the lock row names as the holder's host (the owner label, else the host name)
 */
public record Settings(String describe, Duration leaseTtl, Duration renewEvery, Duration driftMargin,
    Duration maxBackoff, String table, String host, int ioThreads) {

  /** The longest a statement may run: a renewal must fail, not hang, well before the lease's time is up. */
  public int queryTimeoutSeconds() {
    return (int) Math.max(1, renewEvery.toSeconds());
  }
}
