package dev.baton.discovery;

/**
 * How {@link ServiceView#pick} chooses among the live, enabled instances of a service. Each view
 * keeps its own position (round robin) and its own choice (sticky).
 */
public enum PickStrategy {
  /** Each instance in turn, in id order; an instance that joins takes its place in the cycle. */
  ROUND_ROBIN,
  /** Any instance, each as likely as the others. */
  RANDOM,
  /**
   * The same instance every time, as long as it is live and enabled; then another, chosen round
   * robin, which is kept in turn.
   */
  STICKY,
  /**
   * Any instance, each as likely as its weight: the payload's {@code "weight"} (a number, 1 if
   * missing or not a number; 0 never picked unless all are 0).
   */
  WEIGHTED_RANDOM
}
