package dev.baton.leader;

import dev.baton.ClientClosedException;
import dev.baton.ConnectionException;
import dev.baton.FailureListener;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;

/**
 * Leader election that runs a {@link LeaderTask} while leading: participants queue in order, the
 * first one runs its task on a thread of its own, and leadership passes to the next when the task
 * returns. It queues on a mutex: on ZooKeeper wire-compatible with Curator's {@code
 * LeaderSelector}, nodes {@code _c_<uuid>-lock-<seq>} under the path (a container node) holding
 * the participant id in UTF-8, lowest sequence first, so Baton and Curator participants can share
 * one election; on other backends (Redis, SQL) the backend's {@link dev.baton.lock.Mutex} on the
 * path, with the participant id recorded with each one's place in its queue.
 *
 * <pre>{@code
 * LeaderSelector selector = baton.leaderSelector("/jobs/nightly-report", "worker-7", leadership -> {
 *   report.run(leadership.fencingToken()); // interrupted if leadership is taken away
 * }).autoRequeue();
 * selector.start();
 * }</pre>
 *
 * <p>Leadership is taken away when its lease turns SUSPECT (on ZooKeeper the connection is
 * suspended; on Redis a renewal failed) or LOST (the session expired or was silent past its
 * timeout; on Redis the lease TTL passed): listeners are told and the task's thread is
 * interrupted, before another participant can lead. Once the task returns its place is given up
 * (its node deleted, its lock released) and, with {@link #autoRequeue()}, the participant queues
 * again (on the client's new session after expiry). While a task ignores the interrupt its place
 * stays, unless the lease is LOST (the session ended, the TTL passed), so no one else leads
 * meanwhile; but the task's lease is no longer to be trusted.
 */
public interface LeaderSelector extends AutoCloseable {

  /** The election's path, as given. */
  String path();

  /** This participant's id, as given; what {@link #leaderId()} shows to everyone. */
  String participantId();

  /**
   * Queue again each time the task returns (or leadership is taken away), until closed; without
   * it, the participant leads at most once per {@link #start()} or {@link #requeue()}. May be
   * called at any time; it applies from the next return of the task on.
   *
   * @return this selector
   */
  LeaderSelector autoRequeue();

  /**
   * Queues for leadership in the background. Never blocks.
   *
   * @throws IllegalStateException if the selector was already started or closed
   * @throws ClientClosedException if the client is closed
   */
  void start();

  /**
   * Queues again after the task has returned, as {@link #start()} did.
   *
   * @return false if the selector was already queued or leading
   * @throws IllegalStateException if the selector is not started, or closed, or has stopped for a
   *     {@link #failure()} (the cause)
   */
  boolean requeue();

  /** Whether this participant's task runs now with leadership that can be trusted. Local state. */
  boolean hasLeadership();

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
   * Why this selector stopped trying to join the election, if it did: an error retrying cannot cure
   * (the client was closed; on ZooKeeper also: the path's ACL refuses this identity, the ensemble
   * refused the ACL).
   * Connection loss and session expiry never end it; they are ridden out as described above.
   * Local state; makes no request.
   */
  Optional<RuntimeException> failure();

  /**
   * Tells {@code listener}, on the client's event executor and at most once, when this selector stops
   * for the reason {@link #failure()} then returns; at once if it has already stopped.
   */
  void addFailureListener(FailureListener listener);

  /**
   * The id of the participant that leads now, read from the store (on ZooKeeper retried on
   * connection loss as the retry policy says; on Redis within the command timeout); empty when
   * nobody is queued.
   *
   * @throws ConnectionException if the store cannot be reached in time
   */
  Optional<String> leaderId();

  /** Ids of every participant in queue order, the leader first, read from the store. */
  List<String> participants();

  /**
   * Leaves the election: a waiting participant's place is given up; a running task is interrupted
   * (listeners told) and its place (node, lock) given up as soon as the task returns. Does not wait
   * for the task. Idempotent; a closed selector cannot be started again.
   */
  @Override
  void close();
}
