package dev.baton.internal.queue;

import dev.baton.internal.session.Session;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The items one client gave back because a handler of its own failed on them, each until its
 * back-off ends: the client's takers leave them to other clients' consumers meanwhile. One per
 * client (its {@link Session}), shared by every queue object of the client, since the failure may
 * be the client's own rather than one handler's. Only in memory: a restarted client does not
 * know them.
 */
final class HeldBackItems {
  // Weak keys: a closed client's holds go with it even if their timers never ran (the scheduler is
  // stopped on close). Values never refer to their session, or the key could not be collected.
  private static final Map<Session, HeldBackItems> BY_CLIENT = Collections.synchronizedMap(new WeakHashMap<>());

  // Item (its server path) -> System.nanoTime() when its hold ends.
  private final Map<String, Long> until = new ConcurrentHashMap<>();

  private HeldBackItems() {}

  static HeldBackItems of(Session session) {
    return BY_CLIENT.computeIfAbsent(session, client -> new HeldBackItems());
  }

  /** Holds {@code serverItemPath} back for {@code nanos}, replacing any hold it has. */
  void hold(Session session, String serverItemPath, long nanos) {
    long deadline = System.nanoTime() + nanos;
    until.put(serverItemPath, deadline);
    try {
      // Forgets the hold even if no taker of this client looks at the item again (another
      // client acknowledged it, say).
      session.scheduler().schedule(() -> until.remove(serverItemPath, deadline), nanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException closed) {
      until.remove(serverItemPath, deadline);
    }
  }

  /** How long {@code serverItemPath} is still held back; 0 if it is not. */
  long remainingNanos(String serverItemPath) {
    Long deadline = until.get(serverItemPath);
    if (deadline == null) {
      return 0;
    }
    long left = deadline - System.nanoTime();
    return Math.max(left, 0);
  }
}
