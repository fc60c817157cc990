package dev.baton.lock;

import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A resource in this process that only lets the newest lock holder write: each write carries the
 * {@link Lease#fencingToken() fencing token} of the writer's lease, and a token lower than one
 * already accepted is refused with {@link StaleTokenException}. A lock alone cannot stop a holder
 * that stalled (a long GC pause, a swapped-out VM) past its session timeout from writing after
 * the lock has passed to someone else; the resource checking the token can (Kleppmann,
 * "How to do distributed locking", 2016). A token is only useful if the protected resource checks it.
 *
 * <pre>{@code
 * FencedResource<Map<String, Integer>> inventory = new FencedResource<>("inventory", new HashMap<>());
 * try (Lease lease = mutex.acquire(Duration.ofSeconds(5))) {
 *   inventory.write(lease.fencingToken(), stock -> stock.merge("sku-42", -1, Integer::sum));
 * }
 * }</pre>
 *
 * <h2>The rule</h2>
 * A write with token {@code t} runs if no write was accepted before, or {@code t >= h}, where
 * {@code h} is the highest token accepted so far; {@code t} then becomes {@code h}. Tokens of one
 * lock path strictly grow from one holder to the next, so {@code t > h} is a new holder, {@code t
 * == h} is the same holder (the same lease, or a reentrant level of it) writing again, and {@code
 * t < h} is a holder that has been superseded: refused, and the action is not run. The token is
 * recorded before the action runs, so an action that throws still fences off older holders. Use
 * one resource per lock path: tokens of different lock paths are not ordered against each other.
 *
 * <h2>The same rule in a database</h2>
 * A resource outside this process must make the check itself, atomically with the write. In SQL,
 * keep the highest token in a column of the row it protects and make it part of the update:
 * <pre>{@code
 * CREATE TABLE stock (id INT PRIMARY KEY, qty INT NOT NULL, fence BIGINT NOT NULL DEFAULT 0);
 *
 * UPDATE stock SET qty = qty - 1, fence = ?   -- 1: lease.fencingToken()
 *  WHERE id = ? AND fence <= ?                -- 2: the row, 3: lease.fencingToken() again
 * }</pre>
 * An update count of 0 means a newer holder has written the row: the stale holder's write is
 * refused by the database itself, however late it arrives. ({@code fence < ?} would also refuse
 * the same holder's second update.) Let the database compute the new value ({@code qty - 1})
 * rather than writing one computed from an earlier read: the check happens at the write, so a
 * stale holder's write that lands before the new holder's first write is still accepted, and a
 * value the new holder computed from a read made before that is then out of date.
 *
 * <p>For data kept in ZooKeeper itself, {@code Baton.guard(lease)} makes the same guarantee without a
 * token: the write is applied only while the lease's node exists.
 *
 * <p>Thread-safe. The check and the action run under one lock of this object, so actions never
 * overlap and a stale write cannot slip in between a check and its write: keep actions short, and
 * do not wait in one for another thread's write. No network is involved, so there is nothing to
 * time out and no connection to lose. The lock is a {@link ReentrantLock}, not a monitor: an
 * action that blocks (on I/O, say) on a virtual thread unmounts it rather than pinning its carrier,
 * and the writers queued behind it wait unmounted too.
 *
 * @param <T> the type of the wrapped resource
 */
public final class FencedResource<T> {
  private final String name;
  private final T resource;
  // Held through the check and the action: writes run one at a time, each seeing every earlier one.
  private final ReentrantLock lock = new ReentrantLock();
  private boolean anyAccepted; // guarded by lock
  private long highest; // guarded by lock

  /**
   * @param name names the resource in {@link StaleTokenException}'s message
   * @param resource what the writes act on; reach it only through this object
   */
  public FencedResource(String name, T resource) {
    this.name = Objects.requireNonNull(name, "name");
    this.resource = Objects.requireNonNull(resource, "resource");
  }

  /**
   * Runs {@code action} on the resource if {@code token} is not lower than the highest accepted.
   *
   * @throws StaleTokenException naming both tokens if it is lower; {@code action} is not run
   */
  public void write(long token, Consumer<? super T> action) {
    Objects.requireNonNull(action, "action");
    compute(token, r -> {
      action.accept(r);
      return null;
    });
  }

  /**
   * As {@link #write}, returning what {@code action} returns.
   *
   * @throws StaleTokenException naming both tokens if {@code token} is lower than the highest
   *     accepted; {@code action} is not run
   */
  public <R> R compute(long token, Function<? super T, ? extends R> action) {
    Objects.requireNonNull(action, "action");
    lock.lock();
    try {
      if (anyAccepted && token < highest) {
        throw new StaleTokenException(name, token, highest);
      }
      anyAccepted = true;
      highest = token;
      return action.apply(resource);
    } finally {
      lock.unlock();
    }
  }

  /** Runs {@code action} on the resource without a token, under the same lock as the writes. */
  public <R> R read(Function<? super T, ? extends R> action) {
    Objects.requireNonNull(action, "action");
    lock.lock();
    try {
      return action.apply(resource);
    } finally {
      lock.unlock();
    }
  }

  /** The highest token accepted so far; empty before the first write. */
  public OptionalLong highestToken() {
    lock.lock();
    try {
      return anyAccepted ? OptionalLong.of(highest) : OptionalLong.empty();
    } finally {
      lock.unlock();
    }
  }

  public String name() {
    return name;
  }

  @Override
  public String toString() {
    return "FencedResource[" + name + ", highest token " + highestToken() + "]";
  }
}
