package dev.baton.internal.jdbc;

import dev.baton.internal.lease.LeaseLevel;

/** One level of a {@link JdbcHold}, as handed to the caller. */
public final class JdbcLease extends LeaseLevel {
  private final JdbcHold hold;

  JdbcLease(JdbcHold hold) {
    super(hold);
    this.hold = hold;
  }

  /** A level of one tenure of a cohort's hold. */
  JdbcLease(JdbcTenure tenure) {
    super(tenure);
    this.hold = tenure.hold();
  }

  /** The hold behind this lease, for the guarded transaction of the client that made it. */
  public JdbcHold hold() {
    return hold;
  }

  /** Whether this level has been closed by its holder. */
  public boolean closed() {
    return isClosed();
  }
}
