package dev.baton.lock;

import java.time.Instant;
import java.util.concurrent.Executor;

/**
 * Proof of holding a lock (or permits). Close it to release; closing is idempotent and may be
 * done from any thread.
 *
 * <p>A lease is bound to what its backend keeps alive for it: on ZooKeeper, the session that
 * acquired it. When the connection is suspended it turns {@link LeaseState#SUSPECT}; when the
 * session expires, or the client has not heard from the ensemble for longer than the session
 * timeout, it turns {@link LeaseState#LOST} and never comes back. Both are reported to listeners
 * before another client can take the lock. This interface names no backend's types: code written
 * against it runs on any of them.
 */
public interface Lease extends AutoCloseable {

  /** The lock's path (as the caller gave it, without the client's namespace). */
  String path();

  /**
   * A number that strictly grows from one holder of this lock path to the next, across clients
   * and across deletion and re-creation of the path. Pass it to the resource the lock protects
   * and have the resource reject a token lower than one it has seen (a holder that lost its lease
   * while stalled cannot then overwrite the work of its successor). Each backend derives it from
   * what its server orders (on ZooKeeper the zxid that created the lease's node, as {@code
   * dev.baton.FencingTokens} describes). {@link FencedResource} shows the check, in this process
   * and in SQL.
   */
  long fencingToken();

  LeaseState state();

  /** {@code state() == HELD}. */
  boolean isValid();

  /**
   * The latest instant at which this lease can still be trusted without hearing from the
   * ensemble again: the last contact the client can vouch for, plus the session timeout, less a
   * safety margin. While the client is connected this keeps moving forward; once the connection
   * is suspended it stands still, and the lease turns {@link LeaseState#LOST} when it passes. A
   * released or lost lease returns a past instant.
   *
   * <p>The client counts a reply's arrival as its last contact, so a link that delays traffic
   * one way by more than a tenth of the session timeout (3 s of a 30 s session) makes this
   * instant, and the LOST notice, up to that delay late. The SUSPECT notice (the lease is no longer
   * {@link #isValid() valid}) still comes before the ensemble can end the session while that delay
   * stays under a third of the session timeout; act on it rather than on this instant when links
   * may be that slow.
   */
  Instant validUntil();

  /**
   * Lets other processes ask for this lock: {@code listener} is called (on the client's event
   * executor) each time one does, through {@code baton.requestRevocation(mutex)} or Curator's
   * {@code Revoker.attemptRevoke}. Nothing is released by itself: the holder decides. A request
   * written while the connection is down is seen once it is back (the watch is set again); one
   * made before this call is reported at once.
   *
   * @throws UnsupportedOperationException if this kind of lease cannot be asked for
   */
  default void makeRevocable(RevocationListener listener) {
    throw new UnsupportedOperationException("this lease (" + path() + ") cannot be revoked");
  }

  /**
   * Calls {@code listener} for every later state change, on the client's notice thread: where
   * connection-state and leadership listeners run by default and no async result completes, so a
   * slow job chained on one cannot delay the SUSPECT or LOST that must be heard before another
   * client can be granted the lock. A listener that blocks delays the others on that thread.
   */
  void addListener(LeaseListener listener);

  /** Calls {@code listener} on {@code executor} for every later state change. */
  void addListener(LeaseListener listener, Executor executor);

  /**
   * Releases the lease (one level of it, for a reentrant hold). Idempotent and never throws: the
   * lease is invalid the moment this returns; the lock node is deleted in the background, retried
   * across connection loss, and removed by the ensemble with the session at worst.
   */
  @Override
  void close();
}
