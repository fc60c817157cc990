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
 * until closed, and exactly one started latch of the path is leader at a time. Participants queue
 * in order, without a thread of their own while they wait; the first one leads.
 *
 * <p>On ZooKeeper it is wire-compatible with Curator's {@code LeaderLatch}: each participant is an
 * ephemeral sequential node {@code _c_<uuid>-latch-<seq>} under the path (a container node),
 * holding the participant id in UTF-8; the lowest sequence leads, and every other participant
 * watches a node below it (no herd), so Baton and Curator participants can share one election.
 * On other backends (Redis, SQL) the leader is the holder of the backend's {@link
 * dev.baton.lock.Mutex} on the path, the others wait in that lock's queue, and the participant id
 * is recorded with each one's place in it.
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
 * <p>Leadership is a {@link Lease} ({@link #leadership()}): its fencing token is the lock's (on
 * ZooKeeper derived from the zxid that created the latch's node), so a new leader always has a
 * larger token than the one before it and a resource that checks tokens ({@link
 * FencedResource}, or {@code Baton.guard(lease)} for data in ZooKeeper) refuses the writes of a
 * deposed leader.
 *
 * <p>Connection loss: while the lease is {@link LeaseState#SUSPECT SUSPECT} (on ZooKeeper the
 * connection is suspended; on Redis a renewal failed) the latch is not leader ({@link
 * #hasLeadership()} is false and listeners are told it was lost), but it keeps its place; if the
 * lease turns {@link LeaseState#HELD HELD} again (the same session reconnects and the node still
 * leads; a renewal succeeds in time), leadership comes back, with the same lease, and listeners
 * are told again. When the lease is {@link LeaseState#LOST LOST} (session expiry, or silence past
 * the session timeout; on Redis the lease TTL passed without a renewal) leadership is lost for
 * good and the latch joins again, at the back (on ZooKeeper on the client's new session). Either
 * way listeners hear of the loss before another participant can lead.
 */
public interface LeaderLatch extends AutoCloseable {

  /** The election's path, as given. */
  String path();

  /** This participant's id, as given; what {@link #leaderId()} shows to everyone. */
  String participantId();

  /**
   * Joins the election: the latch takes its place in the queue in the background (on ZooKeeper its
   * node is created), and listeners are told when it leads. Never blocks; while the connection is
   * down the place is taken once it is back.
   *
   * @throws IllegalStateException if the latch was already started or closed
   * @throws ClientClosedException if the client is closed
   */
  void start();

  /**
   * Whether this latch leads now: started, first in the queue (its node the lowest), and its lease
   * {@link LeaseState#HELD HELD}. Local state; makes no request.
   */
  boolean hasLeadership();

  /**
   * Waits until this latch leads, at most {@code timeout}. {@code Duration.ZERO} only looks.
   * While the lease is SUSPECT the latch is not leader, so a wait goes on across a disconnect
   * and ends early only when the latch leads again, is closed, or the timeout passes.
   *
   * @return true if it leads, false if the timeout passed or the latch was (or got) closed
   * @throws IllegalArgumentException if {@code timeout} is negative
   * @throws IllegalStateException if the latch was never started, or has stopped for a {@link
   *     #failure()} (the cause), before or while waiting
   * @throws BatonInterruptedException if interrupted while waiting
   */
  boolean await(Duration timeout);

  /**
   * The current leadership as a lease, while this latch is first in the queue: {@link
   * LeaseState#HELD}, or {@link LeaseState#SUSPECT} while the backend cannot vouch for it (the
   * connection suspended, a renewal failed). Empty when not leading.
   * Closing the lease steps down: the latch leaves the lead and joins again at the back. Local
   * state; makes no request.
   */
  Optional<Lease> leadership();

  /**
   * Tells {@code listener} of every later change of leadership, on the client's notice thread
   * (beside the lease and connection-state listeners; no async result completes there, so a slow
   * {@code thenAccept} cannot delay a "lost"). A backend whose leadership is built on its mutex
   * (Redis) says on its factory method which thread that is.
   */
  void addListener(LeadershipListener listener);

  /** Tells {@code listener}, on {@code executor}, of every later change of leadership. */
  void addListener(LeadershipListener listener, Executor executor);

  void removeListener(LeadershipListener listener);

  /**
   * Why this latch stopped trying to join the election, if it did: an error retrying cannot cure
   * (the client was closed; on ZooKeeper also: the path's ACL refuses this identity, the ensemble
   * refused the ACL).
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
   * The id of the participant that leads now, read from the store (on ZooKeeper a listing and a
   * read or more, retried on connection loss as the retry policy says; on Redis the lock's holder,
   * within the command timeout). Empty when nobody is in the election. The answer may be stale by
   * the time it returns. A holder of the lock that is not a participant (a plain mutex on the
   * same name) is shown as what the backend records of it.
   *
   * @throws ConnectionException if the store cannot be reached in time
   */
  Optional<String> leaderId();

  /**
   * Ids of every participant, in queue order: the leader first, then those in line behind it.
   * Read from the store as {@link #leaderId()}; participants that leave meanwhile are omitted.
   */
  List<String> participants();

  /**
   * Leaves the election: the latch's place is given up (in the background, retried across
   * connection loss; at worst the store drops it when its session or lease ends), and if it was
   * leader, listeners are told it was lost, then the next participant takes over. Idempotent; a
   * closed latch cannot be started again.
   */
  @Override
  void close();
}
