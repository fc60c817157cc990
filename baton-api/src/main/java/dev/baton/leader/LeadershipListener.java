package dev.baton.leader;

import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;

/**
 * Told when a {@link LeaderLatch} or {@link LeaderSelector} becomes leader and when it stops
 * being leader. Calls to one listener come in the order the changes happened, on the executor it
 * was added with (by default the client's notice thread, which no async result completes on).
 *
 * <p>{@link #leadershipLost} comes as soon as leadership can no longer be trusted: when the backend
 * cannot vouch for the lease (it turns {@link LeaseState#SUSPECT}: on ZooKeeper the connection is
 * suspended, on Redis a renewal failed), when the lease is lost or presumed lost ({@link
 * LeaseState#LOST}: the session expired; on Redis the TTL passed without a renewal), and when
 * leadership is given up or the participant closed ({@link LeaseState#RELEASED}). The first two
 * reach this process before the store can let another participant lead (before the ensemble ends
 * the session, before the key expires), as for every {@link Lease}; a listener that stops its work
 * at once never overlaps the next leader (a slow executor or a long pause can still make it late:
 * fence the work with the lease's token).
 */
public interface LeadershipListener {

  /**
   * This participant is leader, with {@code leadership} as its proof: pass its {@link
   * Lease#fencingToken()} to whatever the leader writes, so that writes of a deposed leader can be
   * refused. A latch whose suspended connection comes back with the same session is told again,
   * with the same lease.
   */
  void leadershipGained(Lease leadership);

  /**
   * This participant is no longer leader, or can no longer be sure it is: stop acting as leader
   * now. {@code leadership.state()} is where the lease stands when this runs: {@link
   * LeaseState#SUSPECT} (connection suspended), {@link LeaseState#LOST}, {@link
   * LeaseState#RELEASED}, or still {@link LeaseState#HELD} when a selector is closed while its
   * task runs (its node or lock goes once the task returns). Called before the node or lock that
   * made this participant leader is given up, so before the next leader can be told.
   */
  void leadershipLost(Lease leadership);
}
