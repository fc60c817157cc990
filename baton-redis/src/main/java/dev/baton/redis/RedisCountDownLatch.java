package dev.baton.redis;

import dev.baton.BatonInterruptedException;
import dev.baton.ClientClosedException;
import dev.baton.ConnectionException;
import dev.baton.OutcomeUnknownException;
import dev.baton.internal.redis.RedisCalls;
import dev.baton.internal.redis.RedisErrors;
import dev.baton.internal.redis.RedisScript;
import dev.baton.internal.redis.RedisSession;
import dev.baton.internal.redis.atomic.RedisCounter;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

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
public final class RedisCountDownLatch {
  private static final RedisScript TRY_SET_COUNT = RedisScript.load(RedisCountDownLatch.class,
      "/dev/baton/internal/redis/latch/latch-try-set-count.lua", ScriptOutputType.INTEGER);
  private static final RedisScript COUNT_DOWN = RedisScript.load(RedisCountDownLatch.class,
      "/dev/baton/internal/redis/latch/latch-count-down.lua", ScriptOutputType.INTEGER);
  private static final AtomicLong WAITERS = new AtomicLong();

  private final RedisSession session;
  private final String name;
  private final String channel;

  RedisCountDownLatch(RedisSession session, String name) {
    this.session = session;
    this.name = RedisCounter.checkName(name, "countdown latch");
    this.channel = channelOf(name);
  }

  /** Redisson's channel for the latch {@code name}: <code>redisson_countdownlatch__channel__{name}</code>. */
  public static String channelOf(String name) {
    return "redisson_countdownlatch__channel__{" + name + "}";
  }

  /** The latch's name: its key. */
  public String name() {
    return name;
  }

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
  public boolean trySetCount(long count) {
    if (count < 1) {
      throw new IllegalArgumentException("count must be at least 1, was " + count);
    }
    Long set = RedisCalls.awaitWrite(session, TRY_SET_COUNT.<Long>run(session.commands(), new String[] {name},
        Long.toString(count), channel), name, "setting the count of the latch " + name);
    return set != null && set == 1L;
  }

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
  public long countDown() {
    Long left = RedisCalls.awaitWrite(session, COUNT_DOWN.<Long>run(session.commands(), new String[] {name},
        channel), name, "counting down the latch " + name);
    return left == null ? 0 : Math.max(0, left);
  }

  /**
   * The count now; 0 for an open latch (the key missing). One {@code GET}.
   *
   * @throws ConnectionException if the connection is down or no reply came within the command timeout
   * @throws dev.baton.BatonException if the key holds something other than a count, naming it
   * @throws ClientClosedException if the client is closed
   */
  public long getCount() {
    String text = RedisCalls.await(session, session.commands().get(name), "reading the latch " + name);
    if (text == null) {
      return 0;
    }
    try {
      return Long.parseLong(text.strip());
    } catch (NumberFormatException e) {
      throw new dev.baton.BatonException("The latch " + name + " on Redis at " + session.address() + " holds '"
          + (text.length() > 60 ? text.substring(0, 60) + "..." : text) + "', not a count", e);
    }
  }

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
  public boolean await(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout must not be null");
    if (timeout.isNegative()) {
      throw new IllegalArgumentException("timeout must not be negative, was " + timeout);
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    if (getCount() == 0) {
      return true;
    }
    if (timeout.isZero()) {
      return false;
    }
    LatchWaiter waiter = new LatchWaiter();
    session.register(waiter);
    try {
      CompletableFuture<Void> subscribed = session.notices().joinBroadcast(channel, waiter);
      waitFor(subscribed, deadline);
      // A zero published before the subscription took is heard by no one: read again.
      waiter.wake();
      while (true) {
        boolean woken = waiter.takeWake(deadline);
        if (System.nanoTime() - deadline >= 0) {
          // One last read decides, so a zero missed while the connection was down is not reported as false.
          try {
            return getCount() == 0;
          } catch (ConnectionException e) {
            throw new ConnectionException("Could not read the latch " + name + " on Redis at " + session.address()
                + " when the timeout of " + timeout + " passed, so whether it opened is unknown: " + e.getMessage(), e);
          }
        }
        if (woken) {
          try {
            if (getCount() == 0) {
              return true;
            }
          } catch (ConnectionException e) {
            // down: a reconnection wakes us to read again, and the last read at the deadline decides
          }
        }
      }
    } finally {
      session.notices().leave(channel, waiter);
      session.unregister(waiter);
    }
  }

  private void waitFor(CompletableFuture<Void> subscribed, long deadline) {
    try {
      subscribed.get(Math.max(0, deadline - System.nanoTime()) + TimeUnit.MILLISECONDS.toNanos(
          session.settings().commandTimeout().toMillis()), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BatonInterruptedException("Interrupted while waiting for the latch " + name, e);
    } catch (ExecutionException e) {
      throw RedisErrors.translate(e.getCause(), session.address(), "listening on " + channel);
    } catch (TimeoutException e) {
      throw new ConnectionException("Redis at " + session.address() + " did not confirm the subscription to "
          + channel + " in time", e);
    }
  }

  @Override
  public String toString() {
    return "RedisCountDownLatch[" + name + "]";
  }

  /** One waiting thread: woken by a message on the channel, a reconnection, or the client closing. */
  private final class LatchWaiter implements RedisSession.Waiter {
    private final long sequence = WAITERS.incrementAndGet();
    private final String member = "latch:" + sequence;
    private final Semaphore wakes = new Semaphore(0);
    private volatile Throwable failure;

    @Override
    public long sequence() {
      return sequence;
    }

    @Override
    public String member() {
      return member;
    }

    @Override
    public void wake() {
      if (wakes.availablePermits() == 0) {
        wakes.release();
      }
    }

    @Override
    public void giveUp(Throwable error) {
      failure = error;
      wakes.release();
    }

    /** Whether a wake came before {@code deadline}; throws the failure the client gave up with. */
    boolean takeWake(long deadline) {
      boolean woken;
      try {
        woken = wakes.tryAcquire(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new BatonInterruptedException("Interrupted while waiting for the latch " + name, e);
      }
      wakes.drainPermits(); // several messages before we read: one read covers them all
      Throwable error = failure;
      if (error instanceof RuntimeException re) {
        throw re;
      }
      if (error != null) {
        throw new IllegalStateException(error);
      }
      return woken;
    }
  }
}
