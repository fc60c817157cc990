package dev.baton.internal.lease;

/**
 * How a holder's or waiter's thread is named in the records every backend keeps of it. Virtual
 * threads (and platform threads made without a name) have an empty name, which would leave an
 * operator reading {@code holder()} with nothing to go by; their id stands in.
 */
public final class ThreadLabels {
  private ThreadLabels() {}

  /** The thread's name, or {@code #<id>} when it has none. */
  @SuppressWarnings("deprecation") // threadId() is Java 19+; getId() is the same number on 17
  public static String of(Thread thread) {
    String name = thread.getName();
    return name.isEmpty() ? "#" + thread.getId() : name;
  }
}
