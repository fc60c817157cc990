package dev.baton.barrier;

import dev.baton.Baton;
import dev.baton.BatonInterruptedException;
import dev.baton.ClientClosedException;
import dev.baton.lock.Mutex;
import java.time.Duration;

/**
 * One member of a double barrier: members {@link #enter()} and wait until {@link #members()} of
 * them are in, so they all start together; then they {@link #leave()} and wait until all are out,
 * so they all finish together. Wire-compatible with Curator's {@code DistributedDoubleBarrier}, so
 * Baton and Curator members can share one barrier. Cheap to make ({@code baton.doubleBarrier(path,
 * members)} sends nothing); each object is one member, so make one per participant, even within a
 * process. Its methods may be called from any thread, one at a time.
 *
 * <pre>{@code
 * DoubleBarrier batch = baton.doubleBarrier("/barriers/nightly-batch", 5);
 * batch.enter(Duration.ofMinutes(1));    // returns once 5 members have entered
 * processMyShard();
 * batch.leave(Duration.ofMinutes(10));   // returns once all of them have left
 * }</pre>
 *
 * <h2>The nodes</h2>
 * The path is a container node (created if missing; the ensemble removes it once empty). Each
 * member is an ephemeral child {@code <path>/<uuid>}. The child {@code <path>/ready} (persistent)
 * marks that the barrier is open: the member whose arrival makes the count of member nodes reach
 * {@code members} creates it, and everyone waiting in {@code enter} is released by its creation.
 * Baton creates it in one transaction with a check that every member it counted is still there, so
 * a member that gave up just before is never counted. {@code members} is a threshold, not a
 * limit: a member entering while {@code ready} exists passes at once (after touching {@code ready},
 * so that the round cannot close under it: see Leaving). Clients must agree on the number; it is
 * not stored on the ensemble.
 *
 * <p>Leaving follows ZooKeeper's recipe, as Curator does: the member whose node is lowest by name
 * keeps its node and waits for the highest to go, until it is the last; every other member deletes
 * its node and waits for the lowest to go. So each waiter wakes once or a few times, never for
 * every departure. Once no member node is left, {@code leave} deletes {@code ready} and returns,
 * so the path can serve the next round once every member's {@code leave} has returned. The delete
 * names the version of {@code ready} read just before the last listing: a member that came in
 * since (and touched {@code ready}) makes it fail, and {@code leave} waits for that member too.
 *
 * <h2>Members that die</h2>
 * A member's node lives as long as its session: a process that dies, a client closed without
 * {@code leave}, or a session that expires takes the node with it. Before the barrier opens, that
 * member no longer counts: the others go on waiting until enough members are in again, or time
 * out. After it opened, the member counts as having left: the others' {@code leave} completes
 * without it. Nobody is blocked forever by a dead member, but a timeout is the only bound on
 * waiting for members that never come.
 *
 * <h2>Connection loss and session expiry of this member</h2>
 * Connection loss: waits go on, and the member's node stays while the session lives; requests
 * that fail are sent again once the connection is back. Session expiry while entering: the node
 * is gone, so the member enters again on the client's new session, within the same timeout.
 * Session expiry after entering: the node is gone, and the others see this member as having left
 * early; its own {@code leave} then has nothing to delete and waits for the others.
 *
 * <h2>Differences from Curator</h2>
 * Curator's {@code leave} returns as soon as a single member node is left, whoever it belongs to
 * (even a member that has not called {@code leave}); Baton's waits until that one is gone too,
 * as the recipe says. Curator's timed {@code enter} keeps its
 * node when it gives up and answers {@code false}; Baton's deletes it and throws. A Curator member
 * arriving as a round closes can pass alone (it does not touch {@code ready}), and a Curator
 * leaver deletes {@code ready} whatever its version: the protection above holds among Baton
 * members.
 */
public interface DoubleBarrier {

  /** The barrier's path, as given. */
  String path();

  /** How many members must enter before any of them passes. */
  int members();

  /** Whether this member has entered and not yet left. Local state; makes no request. */
  boolean isEntered();

  /**
   * Enters, and blocks until {@link #members()} members have entered (at once if the barrier is
   * already open).
   *
   * @throws IllegalStateException if this member has entered already and not left
   * @throws BatonInterruptedException if interrupted while waiting (its node is deleted)
   * @throws ClientClosedException if the client is closed, before or while waiting
   */
  void enter();

  /**
   * Enters, and waits at most {@code timeout} for {@link #members()} members to enter. Like
   * {@link Mutex#acquire(Duration)}, a timeout is an exception, since code after {@code enter}
   * assumes everyone is in; the member's node is deleted, so nobody counts it afterwards. If the
   * barrier opened just as the timeout passed (its {@code ready} node reached the server before
   * the deletion), the others were released counting this member: {@code enter} then returns
   * normally, and the member, its node already gone, counts as having left early.
   *
   * <p>If the connection is down when the timeout passes, the node is deleted once it is back;
   * until then others may still count it.
   *
   * @throws BarrierTimeoutException when the timeout passes, naming how many members were in
   * @throws IllegalArgumentException if {@code timeout} is negative
   * @throws IllegalStateException if this member has entered already and not left
   */
  void enter(Duration timeout);

  /**
   * Leaves, and blocks until every member has left.
   *
   * @throws IllegalStateException if this member has not entered
   * @throws BatonInterruptedException if interrupted while waiting (the member has left all the
   *     same: its node is deleted)
   * @throws ClientClosedException if the client is closed, before or while waiting
   */
  void leave();

  /**
   * Leaves, and waits at most {@code timeout} for every member to leave. On timeout the member has
   * left all the same (its node is deleted, whether it was the lowest or not), and, as Curator's
   * members do, it deletes {@code ready}, so the path is ready for a new round once the others
   * are gone.
   *
   * @throws BarrierTimeoutException when the timeout passes, naming the members still in
   * @throws IllegalArgumentException if {@code timeout} is negative
   * @throws IllegalStateException if this member has not entered
   */
  void leave(Duration timeout);
}
