package dev.baton.leader;

import dev.baton.BatonInterruptedException;
import dev.baton.ClientClosedException;
import dev.baton.ConnectionException;
import dev.baton.FailureListener;
import dev.baton.lock.FencedResource;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;

/**
 * Leader election among the participants of one path: once started, a latch stays in the running
 * until closed, and exactly one started latch of the path is leader at a time.
 * Wire-compatible with Curator's {@code LeaderLatch}: each participant is an ephemeral sequential
 * node {@code _c_<uuid>-latch-<seq>} under the path (a container node), holding the participant id
 * in UTF-8; the lowest sequence leads, and every other participant watches a node below it (no
 * herd), so Baton and Curator participants can share one election.
 *
 * <pre>{@code
 * try (LeaderLatch latch = baton.leaderLatch("/services/billing/leader", "billing-3")) {
 *   latch.addListener(new LeadershipListener() {
 *     public void leadershipGained(Lease leadership) { scheduler.resume(leadership.fencingToken()); }
 *     public void leadershipLost(Lease leadership) { scheduler.pause(); }
 *   });
 *   latch.start();
 *   ...
 * }
 * }</pre>
 *
 * <p>Leadership is a {@link Lease} ({@link #leadership()}): its fencing token is derived from the
 * zxid that created the latch's node, so a new leader always has a larger token than the one
 * before it and a resource that checks tokens ({@link FencedResource}, or {@code Baton.guard(lease)}
 * for data in ZooKeeper) refuses the writes of a deposed leader.
 *
 * <p>Connection loss: while the connection is suspended the latch is not leader ({@link
 * #hasLeadership()} is false and listeners are told it was lost), but it keeps its node; if the
 * same session reconnects and the node still leads, leadership comes back, with the same lease,
 * and listeners are told again. Session expiry (or silence past the session timeout): leadership
 * is lost for good and the latch joins again, at the back, on the client's new session. Either
 * way listeners hear of the loss before another participant can lead.
 */
public interface LeaderLatch extends AutoCloseable {

  /** The election's path, as given. */
  String path();

  /** This participant's id, as given; what {@link #leaderId()} shows to everyone. */
  String participantId();

  /**
   * Joins the election: the latch's node is created in the background, and listeners are told
   * when it leads. Never blocks; while the connection is down the node is created once it is back.
   *
   * @throws IllegalStateException if the latch was already started or closed
   * @throws ClientClosedException if the client is closed
   */
  void start();

  /**
   * Whether this latch leads now: started, its node the lowest, and the connection up. Local
   * state; makes no request.
   */
  boolean hasLeadership();

  /**
   * Waits until this latch leads, at most {@code timeout}. {@code Duration.ZERO} only looks.
   * While the connection is suspended the latch is not leader, so a wait goes on across a
   * disconnect and ends early only when the latch leads again, is closed, or the timeout passes.
   *
   * @return true if it leads, false if the timeout passed or the latch was (or got) closed
   * @throws IllegalArgumentException if {@code timeout} is negative
   * @throws IllegalStateException if the latch was never started, or has stopped for a {@link
   *     #failure()} (the cause), before or while waiting
   * @throws BatonInterruptedException if interrupted while waiting
   */
  boolean await(Duration timeout);

  /**
   * The current leadership as a lease, while this latch's node leads: {@link LeaseState#HELD},
   * or {@link LeaseState#SUSPECT} while the connection is suspended. Empty when not leading.
   * Closing the lease steps down: the latch leaves the lead and joins again at the back. Local
   * state; makes no request.
   */
  Optional<Lease> leadership();

  /**
   * Tells {@code listener} of every later change of leadership, on the client's notice thread
   * (beside the lease and connection-state listeners; no async result completes there, so a slow
   * {@code thenAccept} cannot delay a "lost").
   */
  void addListener(LeadershipListener listener);

  /** Tells {@code listener}, on {@code executor}, of every later change of leadership. */
  void addListener(LeadershipListener listener, Executor executor);

  void removeListener(LeadershipListener listener);

  /**
   * Why this latch stopped trying to join the election, if it did: an error retrying cannot cure
   * (the path's ACL refuses this identity, the ensemble refused the ACL, the client was closed).
   * Connection loss and session expiry never end it; they are ridden out as described above.
   * Local state; makes no request.
   */
  Optional<RuntimeException> failure();

  /**
   * Tells {@code listener}, on the client's event executor and at most once, when this latch stops
   * for the reason {@link #failure()} then returns; at once if it has already stopped.
   */
  void addFailureListener(FailureListener listener);

  /**
   * The id of the participant whose node leads now, read from the ensemble (a listing and a read
   * or more; retried on connection loss as the retry policy says). Empty when nobody is in the
   * election. The answer may be stale by the time it returns.
   *
   * @throws ConnectionException if the ensemble cannot be reached within the retry policy
   */
  Optional<String> leaderId();

  /**
   * Ids of every participant, in queue order: the leader first, then those in line behind it.
   * Read from the ensemble as {@link #leaderId()}; participants that leave meanwhile are omitted.
   */
  List<String> participants();

  /**
   * Leaves the election: the latch's node is deleted (in the background, retried across
   * connection loss; at worst the ensemble removes it with the session), and if it was leader,
   * listeners are told it was lost and the next participant takes over. Idempotent; a closed
   * latch cannot be started again.
   */
  @Override
  void close();
}
