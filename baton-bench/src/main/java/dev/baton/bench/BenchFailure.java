package dev.baton.bench;

/** The benchmark cannot go on: a contender failed or broke mutual exclusion. */
public final class BenchFailure extends Exception {
  private static final long serialVersionUID = 1L;

  public BenchFailure(String message, Throwable cause) {
    super(message, cause);
  }

  public BenchFailure(String message) {
    super(message);
  }
}
