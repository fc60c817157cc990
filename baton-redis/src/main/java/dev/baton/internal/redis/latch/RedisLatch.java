package dev.baton.internal.redis.latch;

import dev.baton.BatonInterruptedException;
import dev.baton.ClientClosedException;
import dev.baton.ConnectionException;
import dev.baton.OutcomeUnknownException;
import dev.baton.internal.redis.RedisCalls;
import dev.baton.internal.redis.RedisErrors;
import dev.baton.internal.redis.RedisScript;
import dev.baton.internal.redis.RedisSession;
import dev.baton.redis.RedisCountDownLatch;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/** Baton's {@link RedisCountDownLatch}: Redisson's {@code RCountDownLatch} layout, waiters woken by its channel. */
public final class RedisLatch implements RedisCountDownLatch {
  private static final RedisScript TRY_SET_COUNT = RedisScript.load(RedisLatch.class,
      "/dev/baton/internal/redis/latch/latch-try-set-count.lua", ScriptOutputType.INTEGER);
  private static final RedisScript COUNT_DOWN = RedisScript.load(RedisLatch.class,
      "/dev/baton/internal/redis/latch/latch-count-down.lua", ScriptOutputType.INTEGER);
  private static final AtomicLong WAITERS = new AtomicLong();

  private final RedisSession session;
  private final String name;
  private final String channel;

  public RedisLatch(RedisSession session, String name) {
    this.session = session;
    this.name = RedisCalls.checkName(name, "countdown latch");
    this.channel = RedisCountDownLatch.channelOf(name);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public boolean trySetCount(long count) {
    if (count < 1) {
      throw new IllegalArgumentException("count must be at least 1, was " + count);
    }
    Long set = RedisCalls.awaitWrite(session, TRY_SET_COUNT.<Long>run(session.commands(), new String[] {name},
        Long.toString(count), channel), name, "setting the count of the latch " + name);
    return set != null && set == 1L;
  }

  @Override
  public long countDown() {
    Long left = RedisCalls.awaitWrite(session, COUNT_DOWN.<Long>run(session.commands(), new String[] {name},
        channel), name, "counting down the latch " + name);
    return left == null ? 0 : Math.max(0, left);
  }

  @Override
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

  @Override
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
