package dev.baton.internal.redis.semaphore;

import dev.baton.BatonInterruptedException;
import dev.baton.internal.redis.OwnerRecord;
import dev.baton.internal.redis.QueuedAcquisition;
import dev.baton.internal.redis.RedisErrors;
import dev.baton.internal.redis.RedisSession;
import dev.baton.internal.redis.Tenure;
import dev.baton.lock.AcquireTimeoutException;
import dev.baton.lock.Lease;
import dev.baton.lock.LockOwner;
import dev.baton.lock.Semaphore;
import io.lettuce.core.ScoredValue;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A {@link Semaphore} on Redis in Redisson's {@code RPermitExpirableSemaphore} layout: the count of
 * available permits in the key {@code name}, the permits held in {@code {name}:timeout} scored by
 * when they expire (so a crashed holder's permits come back), releases published on {@code
 * redisson_sc:{name}}; Baton's waiters queue, and a release grants the permits it frees to the first
 * in line itself, telling it on {@code baton_sem_grant:{name}}. See {@code dev.baton.redis.RedisBaton#semaphore} for what it promises.
 */
public final class RedisSemaphore implements Semaphore {
  private static final int MAX_NAME_BYTES = 1024;

  private final RedisSession session;
  private final String name;
  private final int permits;
  private final String[] keys;

  public RedisSemaphore(RedisSession session, String name, int permits) {
    Objects.requireNonNull(name, "semaphore name must not be null");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("semaphore name must not be empty");
    }
    int bytes = name.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_NAME_BYTES) {
      throw new IllegalArgumentException("semaphore name '" + name.substring(0, 40) + "...' is " + bytes
          + " bytes in UTF-8; at most " + MAX_NAME_BYTES + " are allowed");
    }
    if (permits < 1) {
      throw new IllegalArgumentException("permits must be at least 1, was " + permits);
    }
    this.session = session;
    this.name = name;
    this.permits = permits;
    String tag = name.contains("{") ? name : "{" + name + "}";
    this.keys = new String[] {
        name, tag + ":timeout", "redisson_sc:" + tag, "baton_sem_queue:" + tag, "baton_sem_alive:" + tag,
        "baton_sem_token:" + tag, "baton_sem_holders:" + tag, "baton_sem_grant:" + tag};
    session.checkOneSlot(name, keys);
  }

  /** The keys in the order the scripts take them; [2] is the release channel, [7] the grant channel. */
  String[] keys() {
    return keys;
  }

  <T> CompletableFuture<T> run(SemScripts script, String... args) {
    return script.script.run(session.commands(), keys, args);
  }

  @Override
  public String path() {
    return name;
  }

  @Override
  public int permits() {
    return permits;
  }

  @Override
  public Lease acquire() {
    return acquireBlocking(1, null, true).orElseThrow();
  }

  @Override
  public Lease acquire(Duration timeout) {
    return acquireBlocking(1, checkTimeout(timeout), true).orElseThrow();
  }

  @Override
  public Optional<Lease> tryAcquire(Duration timeout) {
    return acquireBlocking(1, checkTimeout(timeout), false);
  }

  @Override
  public Lease acquire(int count, Duration timeout) {
    return acquireBlocking(checkCount(count), checkTimeout(timeout), true).orElseThrow();
  }

  @Override
  public Optional<Lease> tryAcquire(int count, Duration timeout) {
    return acquireBlocking(checkCount(count), checkTimeout(timeout), false);
  }

  @Override
  public CompletableFuture<Lease> acquireAsync() {
    return acquireAsync(null);
  }

  @Override
  public CompletableFuture<Lease> acquireAsync(Duration timeout) {
    if (timeout != null) {
      checkTimeout(timeout);
    }
    session.checkOpen();
    CompletableFuture<Tenure> pending = new SemAcquisition(this, session, Thread.currentThread(), 1, true)
        .tenure(timeout == null ? -1 : timeout.toNanos());
    return QueuedAcquisition.leaseOf(pending, session, "acquiring a permit of " + name);
  }

  private Optional<Lease> acquireBlocking(int count, Duration timeout, boolean timeoutThrows) {
    session.checkOpen();
    boolean tryOnce = timeout != null && timeout.isZero();
    CompletableFuture<Tenure> pending = new SemAcquisition(this, session, Thread.currentThread(), count, !tryOnce)
        .tenure(tryOnce || timeout == null ? -1 : timeout.toNanos());
    Tenure tenure;
    try {
      tenure = QueuedAcquisition.await(pending, "a permit of " + name);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof AcquireTimeoutException) {
        return QueuedAcquisition.timedOut(name, timeout, timeoutThrows);
      }
      throw RedisErrors.translate(e.getCause(), session.address(), "acquiring permits of " + name);
    }
    if (tenure == null) {
      return QueuedAcquisition.timedOut(name, timeout, timeoutThrows);
    }
    return Optional.of(tenure.newLease());
  }

  @Override
  public List<LockOwner> holders() {
    List<ScoredValue<String>> held = read(session.commands().zrangeWithScores(keys[1], 0, -1).toCompletableFuture());
    Map<String, String> records = read(session.commands().hgetall(keys[6]).toCompletableFuture());
    List<LockOwner> holders = new ArrayList<>();
    for (ScoredValue<String> permit : held) {
      String record = records.get(permit.getValue());
      holders.add(record != null ? OwnerRecord.parse(record, Instant.EPOCH)
          : new LockOwner(permit.getValue(), 0, "", 0, "", 0, Instant.EPOCH, false)); // Redisson's: an id only
    }
    return holders;
  }

  private <T> T read(CompletableFuture<T> reply) {
    session.checkOpen();
    try {
      return reply.get(session.settings().commandTimeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BatonInterruptedException("Interrupted while reading the holders of " + name, e);
    } catch (ExecutionException | TimeoutException e) {
      throw RedisErrors.translate(e instanceof ExecutionException ? e.getCause() : e, session.address(),
          "reading the holders of " + name);
    }
  }

  private int checkCount(int count) {
    if (count < 1 || count > permits) {
      throw new IllegalArgumentException("permits must be between 1 and " + permits + " (the semaphore's), was " + count);
    }
    return count;
  }

  private static Duration checkTimeout(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout must not be null");
    if (timeout.isNegative()) {
      throw new IllegalArgumentException("timeout must not be negative, was " + timeout);
    }
    return timeout;
  }

  @Override
  public String toString() {
    return "RedisSemaphore[" + name + ", " + permits + " permits, on " + session.address() + "]";
  }
}
