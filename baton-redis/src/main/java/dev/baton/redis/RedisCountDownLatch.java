package dev.baton.redis;

import dev.baton.BatonInterruptedException;
import dev.baton.ClientClosedException;
import dev.baton.ConnectionException;
import dev.baton.OutcomeUnknownException;
import java.time.Duration;

/**
 * A countdown latch shared by every client of the server, in Redisson's {@code RCountDownLatch}
 * layout: the count is the decimal text in the plain string key {@code name} (deleted when it reaches
 * zero, so a missing key is a latch that is open), and reaching zero publishes {@code 0} on the
 * channel <code>redisson_countdownlatch__channel__{name}</code> (setting a count publishes {@code 1}).
 * A Redisson client and a Baton client on the same name count down the same latch and wake each
 * other's waiters. Thread-safe, and cheap to make: {@link RedisBaton#countDownLatch} sends nothing.
 *
 * <pre>{@code
 * RedisCountDownLatch ready = redis.countDownLatch("batch-42");
 * ready.trySetCount(3);                        // once, by whoever starts the batch
 * ready.countDown();                           // by each of the three workers when done
 * if (ready.await(Duration.ofMinutes(1))) { publishBatch(); }
 * }</pre>
 *
 * <p><b>Waiting</b> holds no polling loop: {@link #await} reads the count, listens on the channel,
 * reads it once more (a zero published between the two reads is seen by the second), and then reads
 * again only when a message on the channel, or a reconnection, says it may have changed. Each
 * waiting client listens on one subscription per latch, whatever the number of its waiting threads.
 *
 * <p><b>Connection loss</b>: {@link #trySetCount}, {@link #countDown} and {@link #getCount} each wait
 * for one reply, up to the client's {@link RedisBaton.Builder#commandTimeout command timeout}, and
 * send nothing again. While the connection is down they fail at once with {@link
 * ConnectionException}, and nothing was applied. A {@link #getCount} with no reply in time throws
 * {@link ConnectionException}; a {@link #trySetCount} or {@link #countDown} whose reply is lost
 * (no reply in time, the connection dropped while it was out, or the caller was interrupted)
 * throws {@link OutcomeUnknownException}: it may have been applied, once at most, so read the count
 * before counting down again. A waiter whose connection drops keeps waiting: Lettuce reconnects and
 * subscribes again, and the waiter reads the count as soon as the connection is back (a zero
 * published meanwhile was missed, and that read sees it). Lettuce's exceptions never reach the caller.
 *
 * <p><b>Timeouts</b>: when the timeout of {@link #await(Duration)} passes, one last read of the count
 * decides: {@code true} if it is zero, {@code false} if not, and {@link ConnectionException} if it cannot
 * be read (the connection is down, or no reply within the command timeout, which that last read may
 * add to the wait), since the latch may have opened meanwhile.
 *
 * <p>On a Redis Cluster the channel is a classic one ({@code PUBLISH}, heard on every node); Redisson
 * configured for sharded pub/sub ({@code SPUBLISH}) does not hear it, nor Baton Redisson's.
 */
public interface RedisCountDownLatch {

  /** Redisson's channel for the latch {@code name}: <code>redisson_countdownlatch__channel__{name}</code>. */
  static String channelOf(String name) {
    return "redisson_countdownlatch__channel__{" + name + "}";
  }

  /** The latch's name: its key. */
  String name();

  /**
   * Sets the count to {@code count} if the latch is open (its key missing: never set, or counted down
   * to zero), and tells the channel ({@code 1}); does nothing to a latch that is counting.
   *
   * @return whether the count was set
   * @throws IllegalArgumentException if {@code count} is less than 1
   * @throws ConnectionException if the connection is down (nothing was set)
   * @throws OutcomeUnknownException if the reply was lost; see "Connection loss" above
   * @throws ClientClosedException if the client is closed
   */
  boolean trySetCount(long count);

  /**
   * Takes one off the count; the one that brings it to zero deletes the key and wakes every waiter, of
   * this client and of others (Redisson's too). On an open latch it does nothing.
   *
   * @return the count left (0 once open)
   * @throws ConnectionException if the connection is down (nothing was counted)
   * @throws OutcomeUnknownException if the reply was lost; see "Connection loss" above
   * @throws dev.baton.BatonException if the key holds something other than a count, naming it
   * @throws ClientClosedException if the client is closed
   */
  long countDown();

  /**
   * The count now; 0 for an open latch (the key missing). One {@code GET}.
   *
   * @throws ConnectionException if the connection is down or no reply came within the command timeout
   * @throws dev.baton.BatonException if the key holds something other than a count, naming it
   * @throws ClientClosedException if the client is closed
   */
  long getCount();

  /**
   * Waits until the count is zero, or {@code timeout} passes; see "Waiting" above for how.
   * {@link Duration#ZERO} reads the count once.
   *
   * @return true once the count is zero (at once on an open latch), false if {@code timeout} passed first
   * @throws IllegalArgumentException if {@code timeout} is negative
   * @throws NullPointerException if {@code timeout} is null
   * @throws ConnectionException if the count cannot be read when the wait starts, or when the timeout
   *     passes (see "Timeouts" above)
   * @throws BatonInterruptedException if the thread is interrupted (its flag set again)
   * @throws ClientClosedException if the client is closed, or closes during the wait
   */
  boolean await(Duration timeout);
}
