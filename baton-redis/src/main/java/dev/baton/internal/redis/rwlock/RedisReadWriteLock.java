package dev.baton.internal.redis.rwlock;

import dev.baton.BatonInterruptedException;
import dev.baton.SessionLostException;
import dev.baton.internal.redis.OwnerRecord;
import dev.baton.internal.redis.QueuedAcquisition;
import dev.baton.internal.redis.RedisErrors;
import dev.baton.internal.redis.RedisSession;
import dev.baton.internal.redis.Tenure;
import dev.baton.lock.AcquireTimeoutException;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.LockOwner;
import dev.baton.lock.Mutex;
import dev.baton.lock.ReadWriteLock;
import io.lettuce.core.ScoredValue;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A {@link ReadWriteLock} on Redis in Redisson's {@code RReadWriteLock} layout, so Baton and Redisson
 * clients exclude each other on the same name. Each half is a {@link Mutex}: reentrant per thread
 * and per object through the blocking methods; every acquisition is its own hash field in Redis,
 * renewed while held. See {@code dev.baton.redis.RedisBaton#readWriteLock} for what it promises.
 */
public final class RedisReadWriteLock implements ReadWriteLock {
  static final int MAX_NAME_BYTES = 1024;

  private final RedisSession session;
  private final String name;
  private final RwKeys keys;
  private final Half read = new Half(false);
  private final Half write = new Half(true);

  public RedisReadWriteLock(RedisSession session, String name) {
    this.session = session;
    this.name = checkName(name);
    this.keys = new RwKeys(name);
    session.checkOneSlot(name, keys.all());
  }

  private static String checkName(String name) {
    Objects.requireNonNull(name, "lock name must not be null");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("lock name must not be empty");
    }
    int bytes = name.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_NAME_BYTES) {
      throw new IllegalArgumentException("lock name '" + name.substring(0, 40) + "...' is " + bytes
          + " bytes in UTF-8; at most " + MAX_NAME_BYTES + " are allowed");
    }
    return name;
  }

  @Override
  public String path() {
    return name;
  }

  @Override
  public Mutex readLock() {
    return read;
  }

  @Override
  public Mutex writeLock() {
    return write;
  }

  RwKeys keys() {
    return keys;
  }

  /** Runs {@code script} on this lock's keys. */
  <T> CompletableFuture<T> run(RwScripts script, String... args) {
    return script.script.run(session.commands(), keys.all(), args);
  }

  @Override
  public List<LockOwner> holders() {
    Map<String, String> hash = read(session.commands().hgetall(keys.hash()).toCompletableFuture(), "reading the holders of ");
    Map<String, String> records = read(session.commands().hgetall(keys.holderRecords()).toCompletableFuture(),
        "reading the holders of ");
    List<LockOwner> holders = new ArrayList<>();
    for (String field : hash.keySet()) {
      if (field.equals("mode")) {
        continue;
      }
      String record = records.get(field);
      // A Redisson holder has no record: its field (client id and thread id) is all there is to show.
      LockOwner owner = record == null ? new LockOwner(field, 0, "", 0, "", 0, Instant.EPOCH, false)
          : OwnerRecord.parse(record, Instant.EPOCH);
      holders.add(owner);
    }
    return holders;
  }

  @Override
  public List<LockOwner> waiters() {
    return waiters(null);
  }

  /** The queue in order; {@code writers == null}: all, else only writers or only readers. */
  private List<LockOwner> waiters(Boolean writers) {
    List<ScoredValue<String>> queue = read(session.commands().zrangeWithScores(keys.queue(), 0, -1)
        .toCompletableFuture(), "reading the waiters of ");
    Set<String> writing = new HashSet<>(read(session.commands().zrange(keys.writers(), 0, -1).toCompletableFuture(),
        "reading the waiters of "));
    List<LockOwner> waiters = new ArrayList<>();
    for (ScoredValue<String> entry : queue) {
      if (writers == null || writers == writing.contains(entry.getValue())) {
        waiters.add(OwnerRecord.parse(entry.getValue(), Instant.ofEpochMilli((long) entry.getScore())));
      }
    }
    return waiters;
  }

  private <T> T read(CompletableFuture<T> reply, String what) {
    session.checkOpen();
    try {
      return reply.get(session.settings().commandTimeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BatonInterruptedException("Interrupted while " + what + name, e);
    } catch (ExecutionException | TimeoutException e) {
      throw RedisErrors.translate(e instanceof ExecutionException ? e.getCause() : e, session.address(), what + name);
    }
  }

  @Override
  public String toString() {
    return "RedisReadWriteLock[" + name + " on " + session.address() + "]";
  }

  /** One half: the shared read lock or the exclusive write lock. */
  private final class Half implements Mutex {
    private final boolean exclusive;
    private final Map<Thread, Tenure> heldByThread = new ConcurrentHashMap<>();

    Half(boolean exclusive) {
      this.exclusive = exclusive;
    }

    @Override
    public String path() {
      return name;
    }

    @Override
    public Lease acquire() {
      return acquireBlocking(null, true).orElseThrow();
    }

    @Override
    public Lease acquire(Duration timeout) {
      checkTimeout(timeout);
      return acquireBlocking(timeout, true).orElseThrow();
    }

    @Override
    public Optional<Lease> tryAcquire(Duration timeout) {
      checkTimeout(timeout);
      return acquireBlocking(timeout, false);
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
      // Bound to no thread: no reentrancy and no downgrade, as Mutex#acquireAsync says.
      CompletableFuture<Tenure> pending = new RwAcquisition(RedisReadWriteLock.this, session, Thread.currentThread(),
          exclusive, true, null).tenure(timeout == null ? -1 : timeout.toNanos());
      return QueuedAcquisition.leaseOf(pending, session, "acquiring " + name);
    }

    private Optional<Lease> acquireBlocking(Duration timeout, boolean timeoutThrows) {
      session.checkOpen();
      Thread thread = Thread.currentThread();
      Tenure held = heldByThread.get(thread);
      if (held != null && held.enter()) {
        if (held.state() == LeaseState.LOST) {
          held.exit();
          throw new SessionLostException("The " + (exclusive ? "write" : "read") + " lock " + name
              + " held by thread '" + thread.getName() + "' was lost (its hold expired or was deleted in Redis);"
              + " close its lease before acquiring again");
        }
        return Optional.of(held.newLease());
      }
      RwHold downgradeFrom = null;
      if (exclusive) {
        Tenure reading = read.heldByThread.get(thread);
        if (reading != null && !reading.ended()) {
          throw new IllegalStateException("Thread '" + thread.getName() + "' holds the read lock " + name
              + " and asks for its write lock: it would wait behind its own read lock for ever. Release every"
              + " read lease first, or take the write lock first and downgrade");
        }
      } else {
        Tenure writing = write.heldByThread.get(thread);
        if (writing != null && !writing.ended() && writing.state() != LeaseState.LOST) {
          downgradeFrom = (RwHold) writing.hold();
        }
      }
      boolean tryOnce = timeout != null && timeout.isZero();
      CompletableFuture<Tenure> pending = new RwAcquisition(RedisReadWriteLock.this, session, thread, exclusive,
          !tryOnce, downgradeFrom).tenure(tryOnce || timeout == null ? -1 : timeout.toNanos());
      Tenure tenure;
      try {
        tenure = QueuedAcquisition.await(pending, name);
      } catch (ExecutionException e) {
        if (e.getCause() instanceof AcquireTimeoutException) {
          return QueuedAcquisition.timedOut(name, timeout, timeoutThrows);
        }
        throw RedisErrors.translate(e.getCause(), session.address(), "acquiring " + name);
      }
      if (tenure == null) {
        return QueuedAcquisition.timedOut(name, timeout, timeoutThrows);
      }
      heldByThread.put(thread, tenure);
      tenure.whenEnded(() -> heldByThread.remove(thread, tenure));
      return Optional.of(tenure.newLease());
    }

    @Override
    public boolean isHeldByCurrentThread() {
      Tenure held = heldByThread.get(Thread.currentThread());
      return held != null && !held.ended();
    }

    @Override
    public Optional<LockOwner> holder() {
      Map<String, String> hash = read(session.commands().hgetall(keys.hash()).toCompletableFuture(),
          "reading the holder of ");
      Map<String, String> records = read(session.commands().hgetall(keys.holderRecords()).toCompletableFuture(),
          "reading the holder of ");
      return hash.keySet().stream().filter(field -> !field.equals("mode") && field.endsWith(":write") == exclusive)
          .findFirst().map(field -> records.containsKey(field) ? OwnerRecord.parse(records.get(field), Instant.EPOCH)
              : new LockOwner(field, 0, "", 0, "", 0, Instant.EPOCH, false));
    }

    @Override
    public List<LockOwner> waiters() {
      return RedisReadWriteLock.this.waiters(exclusive);
    }

    @Override
    public String toString() {
      return RedisReadWriteLock.this + (exclusive ? ".writeLock" : ".readLock");
    }
  }

  private static void checkTimeout(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout must not be null");
    if (timeout.isNegative()) {
      throw new IllegalArgumentException("timeout must not be negative, was " + timeout);
    }
  }
}
