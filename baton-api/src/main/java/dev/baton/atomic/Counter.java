package dev.baton.atomic;

import dev.baton.BatonException;
import dev.baton.ConnectionException;
import dev.baton.OutcomeUnknownException;
import dev.baton.RetryPolicy;

/**
 * A {@code long} shared by every client of the store: the distributed counterpart of an
 * {@link java.util.concurrent.atomic.AtomicLong}. Updates from any number of threads and clients
 * are never lost. Thread-safe, and cheap to make: {@code coordinator.counter(name)} sends nothing.
 *
 * <p>What follows describes the ZooKeeper counter ({@code Baton.counter}), where every update is a
 * compare-and-set on the node's version. On Redis ({@code RedisBaton.counter}) the value is a plain
 * string key updated by {@code INCRBY} and a compare-and-set script, shared with Redisson's {@code
 * RAtomicLong}, and as durable as the server's persistence; on SQL ({@code JdbcBaton.counter}) it
 * is a row updated in one statement. Every backend runs the same {@code CounterContract}.
 *
 * <pre>{@code
 * Counter orders = baton.counter("/counters/orders");
 * long orderNumber = orders.incrementAndGet();          // unique across every client
 *
 * Counter stock = baton.counter("/stock/sku-42");        // sell one only while some are left
 * for (long left = stock.get(); left > 0; ) {
 *   long seen = stock.compareAndExchange(left, left - 1);
 *   if (seen == left) { ship(); break; }
 *   left = seen;                                         // lost a race: look again
 * }
 * }</pre>
 *
 * <h2>The node</h2>
 * The value is kept as decimal text ({@code "42"}) in one persistent znode, so {@code zkCli get}
 * shows it and any client can set it. A missing node is the value 0: reading it writes nothing,
 * and the first update creates it, with any missing parents as container nodes (the ensemble
 * removes those once empty, as for lock paths). Deleting the node resets the counter to 0; a node
 * with empty data reads as 0. A node holding anything but a decimal {@code long} (surrounding
 * whitespace aside) makes every method but {@link #set} fail with a {@link BatonException} naming
 * the path and the data, and nothing is written. Curator's {@code DistributedAtomicLong} stores 8 binary bytes
 * instead: the two cannot share a node.
 *
 * <h2>Consistency</h2>
 * Updates are linearizable: the ensemble's leader applies each one only if the node still has the
 * version the update was computed from. {@link #get()} reads from the server this client is
 * connected to, so it sees every update of this client and, while its session lasts, never goes
 * backwards; it may trail another client's latest update by the moment that server needs to
 * catch up (ZooKeeper's sequential consistency). An update computed from such a read fails its
 * version check and is computed again, so no update is ever based on a stale value.
 *
 * <h2>Connection loss and timeouts</h2>
 * Operations have no timeout of their own: a read is retried as the client's {@link RetryPolicy}
 * says, and fails with {@link ConnectionException} when it gives up. An update is never sent again
 * blindly, because a write whose reply was lost may have been applied: once the connection is
 * back, the counter reads the node. If its version has not moved, the write was not applied and
 * is sent again (within the retry policy); if it moved by exactly one write to another value,
 * another client's update came first and this one is computed again; otherwise it may have been
 * applied, and the method throws {@link OutcomeUnknownException} rather than risk applying it
 * twice. So an update is applied at most once, and exactly once when the method returns. Session
 * expiry is handled the same way, on the client's new session.
 */
public interface Counter {

  /** The counter's path, as given. */
  String path();

  /**
   * The current value, from the server this client is connected to; 0 if the node does not
   * exist (nothing is created).
   *
   * @throws BatonException if the node holds something other than a number
   */
  long get();

  /**
   * Sets the value whatever it was, creating the node if needed. Retried on connection loss: a
   * {@code set} is safe to repeat, though if another client writes between a lost attempt and
   * its repetition, that client's value is overwritten.
   */
  void set(long value);

  /**
   * Sets {@code update} if the value is {@code expect}, and returns the value it found: {@code
   * expect} when the update was applied, the current value otherwise (as {@code
   * AtomicLong.compareAndExchange}). Usually one write after a {@link #get()} on the same object,
   * which remembers the node's version; a version conflict costs a read. A conflict with an
   * update that left the value at {@code expect} is retried, so the answer is about the value,
   * not the version.
   *
   * @throws OutcomeUnknownException see "Connection loss" above
   */
  long compareAndExchange(long expect, long update);

  /**
   * Sets {@code update} if the value is {@code expect}; see {@link #compareAndExchange}.
   *
   * @return whether the update was applied
   * @throws OutcomeUnknownException see "Connection loss" above
   */
  default boolean compareAndSet(long expect, long update) {
    return compareAndExchange(expect, update) == expect;
  }

  /**
   * Adds {@code delta} and returns the new value. On a version conflict (another update came
   * first) it reads the node and tries again, as long as it takes: under heavy contention one
   * caller may need many rounds, but every round some caller wins.
   *
   * @throws ArithmeticException naming the path if the sum overflows a {@code long}; nothing is written
   * @throws OutcomeUnknownException see "Connection loss" above
   */
  long addAndGet(long delta);

  /** {@code addAndGet(1)}. */
  default long incrementAndGet() {
    return addAndGet(1);
  }

  /** {@code addAndGet(-1)}; the value may go below 0 (see {@link #compareAndExchange} to stop at 0). */
  default long decrementAndGet() {
    return addAndGet(-1);
  }
}
