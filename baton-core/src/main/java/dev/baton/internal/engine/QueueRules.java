package dev.baton.internal.engine;

/**
 * The queue rules that several recipes share, kept here so that no recipe reaches into another
 * for them: the {@code lock-} layout of Curator's mutex (which its semaphore's {@code locks/}
 * queue, its leader selector and the read-write lock's peers also use) and mutual exclusion.
 */
public final class QueueRules {
  /** The kind in a mutex node's name: {@code _c_<uuid>-lock-<sequence>}. */
  public static final String LOCK_PREFIX = "lock-";

  public static final QueueWaiter.QueueLayout LOCK_LAYOUT = QueueWaiter.QueueLayout.of(LOCK_PREFIX);

  /** Mutual exclusion: wait for the node just below, if any. */
  public static final QueueWaiter.QueueRule EXCLUSIVE = lower -> lower.isEmpty() ? null : lower.get(lower.size() - 1);

  private QueueRules() {}
}
