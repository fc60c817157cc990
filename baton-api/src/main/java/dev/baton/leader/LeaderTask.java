package dev.baton.leader;

import dev.baton.lock.Lease;

/**
 * The work a {@link LeaderSelector} does while its participant leads. Runs on a thread of the
 * selector's own; leadership is given up when it returns or throws.
 */
@FunctionalInterface
public interface LeaderTask {

  /**
   * Leads until done. The thread is interrupted when leadership is taken away (connection
   * suspended, session lost, selector or client closed): return promptly then. {@code leadership}
   * is the proof of leadership: check {@link Lease#isValid()} or pass {@link
   * Lease#fencingToken()} to the resources the leader writes.
   *
   * @throws Exception anything: it is logged, and leadership is given up as on a normal return
   */
  void lead(Lease leadership) throws Exception;
}
