package dev.baton.testkit.contract;

/**
 * A case of the contract that a backend may declare it does not promise ({@link
 * ContractBackend#notPromised()}). The suite does not skip such a case: it runs it and expects the
 * outcome declared here for backends that do not promise it, so the declaration is checked too.
 */
public enum Promise {
  /**
   * A lease held while the server is stopped and started again on the same port (quickly, well
   * within the lease timeout) is still held afterwards: its own client sees it in the store again,
   * it reads {@code HELD} (a client that noticed the outage turned it {@code SUSPECT} meanwhile; one
   * that holds no connection open may not notice a restart between two renewals at all) and no
   * other client can take the lock until it is released.
   *
   * <p>Declared outcome when not promised: the lease turns {@code LOST} (its listeners hear it)
   * and is never silently {@code HELD} again; another client can then take the lock, with a
   * larger fencing token.
   */
  LEASE_KEPT_ACROSS_SERVER_RESTART,

  /**
   * Waiters of one mutex from different clients are granted in the order they queued.
   *
   * <p>Declared outcome when not promised: every waiter is granted exactly once, in some order.
   */
  FIFO_AMONG_CLIENTS,

  /**
   * A waiter listed by {@code Mutex.waiters()} shows the fencing token it will be granted (on
   * ZooKeeper the token is its queued node's zxid, known from the moment it queues).
   *
   * <p>Declared outcome when not promised: a waiter shows token 0 (not known until granted, as
   * where the token is drawn from a counter at the grant); the holder still shows its lease's
   * token, and the waiter's host, pid and thread are shown all the same.
   */
  WAITER_SHOWS_ITS_TOKEN,

  /**
   * {@code Mutex.waiters()} of any client lists the waiters of every client (and so {@code
   * LeaderLatch.participants()} of any client lists every client's participants behind the
   * leader).
   *
   * <p>Declared outcome when not promised: a client's {@code waiters()} lists its own waiters only,
   * and another client's list stays empty ({@code participants()}: the leader, then the calling
   * client's own participants).
   */
  WAITERS_SEEN_BY_EVERY_CLIENT,

  /**
   * When the server's record of a held lock is deleted behind its holder's back (an operator's
   * {@code DEL}, an eviction), the holder is told {@code SUSPECT} or {@code LOST} before anyone
   * else is granted what it held (the mutex, a read-write lock's hold, a semaphore's permit).
   * Checked by the chaos run ({@link CoordinatorChaos}) where the fixture can delete a recipe's
   * record ({@link ContractBackend#canDeleteRecord}).
   *
   * <p>Declared outcome when not promised: the holder is told at its next renewal, and another
   * client may be granted the lock before then, with a larger fencing token, so the fence refuses
   * the old holder's writes once the new holder has written. The chaos report counts such grants
   * apart, and they fail no run.
   */
  LOSS_TOLD_BEFORE_REGRANT_WHEN_KEY_DELETED,

  /**
   * A grant the store acknowledged is kept when the store fails over right after it ({@link
   * ContractBackend#failOver()}), even if it reached the server clients talked to and nothing else
   * ({@link ContractBackend#holdBackReplication()}): what serves after the failover has it, so the
   * lease reads {@code HELD} again, is never silently lost, and no other client is granted the lock
   * while it is valid.
   *
   * <p>Declared outcome when not promised (an asynchronous replica promoted without the grant,
   * which {@code holdBackReplication} made sure of): another client is granted the lock, possibly
   * while the lost lease still reads valid. The lost lease then turns {@code LOST} (its listeners
   * hear it, and it is never {@code HELD} again), its validity does not outlast its lease timeout
   * from the failover, and the new holder's fencing token is strictly larger than the lost one's, so
   * that a {@link dev.baton.lock.FencedResource} refuses the old holder's late write. The chaos run
   * ({@link CoordinatorChaos}) fails such a store over again and again where the fixture can ({@link
   * ContractBackend#canFailOver()}), and counts the overlaps each failover explains apart; they fail
   * no run, but a stale write the fence accepts does.
   */
  GRANT_KEPT_ACROSS_FAILOVER
}
