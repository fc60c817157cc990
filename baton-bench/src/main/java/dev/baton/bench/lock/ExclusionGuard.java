package dev.baton.bench.lock;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the holders of one lock path in this process: every contender of every scenario runs
 * all its clients in this JVM, so more than one holder at a time is a broken lock, and the whole
 * benchmark stops rather than report a figure for it.
 */
public final class ExclusionGuard {
  private final String path;
  private final int allowed;
  private final AtomicInteger holders = new AtomicInteger();

  public ExclusionGuard(String path) {
    this(path, 1);
  }

  /** A guard of a lock that {@code allowed} may hold at once (permits, or readers). */
  public ExclusionGuard(String path, int allowed) {
    this.path = path;
    this.allowed = allowed;
  }

  /** Call right after acquiring. */
  public void enter() {
    int now = holders.incrementAndGet();
    if (now > allowed) {
      throw new MutualExclusionViolation(
          "MUTUAL EXCLUSION VIOLATED on " + path + ": " + now + " holders at once");
    }
  }

  /** Call right before releasing. */
  public void exit() {
    holders.decrementAndGet();
  }

  /** A lock let two holders in: the benchmark's figures are void. */
  public static final class MutualExclusionViolation extends RuntimeException {
    private static final long serialVersionUID = 1L;

    MutualExclusionViolation(String message) {
      super(message);
    }
  }
}
