package dev.baton.internal.redis.mutex;

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
import dev.baton.redis.LockNotReplicatedException;
import dev.baton.redis.RedisLockLayout;
import dev.baton.redis.RedisMutexOptions;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A {@link Mutex} on Redis: reentrant per thread in this client (the levels are counted here; Redis
 * holds one key per holder), FIFO among Baton's waiters through the lock's queue in Redis.
 */
public final class RedisLockMutex implements Mutex {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(RedisLockMutex.class);
  /** Longer names are refused: the name travels in every command, in several keys. */
  static final int MAX_NAME_BYTES = 1024;

  private final RedisSession session;
  private final String name;
  private final RedisMutexOptions options;
  private final LockKeys keys;
  private final Map<Thread, Tenure> heldByThread = new ConcurrentHashMap<>();
  private final LocalCohort cohort;
  private final String tokensPerGrantArg;
  /** The lease's TTL: the options' lease time (not renewed) or the client's (renewed). */
  private final java.time.Duration leaseTtl;
  private final String leaseTtlArg;

  public RedisLockMutex(RedisSession session, String name, RedisMutexOptions options) {
    this.session = session;
    this.name = checkName(name);
    this.options = Objects.requireNonNull(options, "options");
    this.tokensPerGrantArg = Integer.toString(options.localHandOvers() + 1);
    this.keys = new LockKeys(name, options.layout());
    this.leaseTtl = options.leaseTime() != null ? options.leaseTime() : session.settings().leaseTtl();
    this.leaseTtlArg = options.leaseTime() != null ? Long.toString(leaseTtl.toMillis()) : session.leaseTtlArg();
    session.checkOneSlot(name, keys.all());
    if (options.replicaAcks() > 0) {
      session.prepareReplicated(keys.lock()); // connects now, on the caller's thread, not later on an I/O thread
    }
    if (options.localHandOvers() > 0) {
      cohort = new LocalCohort(this, session);
      session.register(cohort);
    } else {
      cohort = null;
    }
  }

  /** Whether {@code lease} came from a local hand-over rather than from Redis: how an observer tells grants apart. */
  public static boolean handedOver(Lease lease) {
    return Tenure.handedOver(lease);
  }

  /** The local queue of this mutex's threads, {@code null} without local hand-over. */
  LocalCohort cohort() {
    return cohort;
  }

  /** How long a grant lives in Redis without renewal. */
  java.time.Duration leaseTtl() {
    return leaseTtl;
  }

  /** {@link #leaseTtl()} in milliseconds, as the scripts take it. */
  String leaseTtlArg() {
    return leaseTtlArg;
  }

  /** Whether holds are renewed while held: not with a fixed lease time per acquisition (Redisson's {@code lock(leaseTime)}). */
  boolean renews() {
    return options.leaseTime() == null;
  }

  /** The tokens each grant reserves (one per holder it may serve), as the acquire script takes it. */
  String tokensPerGrantArg() {
    return tokensPerGrantArg;
  }

  static String checkName(String name) {
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

  LockKeys keys() {
    return keys;
  }

  /** Runs {@code script} on this lock's keys, on the connection this lock's commands go through. */
  <T> CompletableFuture<T> scripts(LockScripts script, String... args) {
    if (options.replicaAcks() > 0) {
      return session.replicated(keys.lock(), commands -> script.run(commands, keys.all(), args));
    }
    return script.run(session.commands(), keys.all(), args);
  }

  /** Completes once {@code hold}'s grant is as safe as the options ask: acknowledged by the replicas. */
  CompletableFuture<Void> confirm(RedisHold hold) {
    int wanted = options.replicaAcks();
    if (wanted == 0) {
      return CompletableFuture.completedFuture(null);
    }
    Duration timeout = options.replicaTimeout();
    return session.replicated(keys.lock(), commands -> commands.waitForReplication(wanted, timeout.toMillis()))
        .thenAccept(acknowledged -> {
          if (acknowledged < wanted) {
            throw new LockNotReplicatedException(name, wanted, acknowledged, timeout);
          }
        });
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
    return QueuedAcquisition.leaseOf(queue(Thread.currentThread(), timeout), session, "acquiring " + name);
  }

  /**
   * Queues for a tenure, through the local cohort if there is one; {@code timeout == null} waits
   * without limit. Completing the future exceptionally withdraws.
   */
  private CompletableFuture<Tenure> queue(Thread thread, Duration timeout) {
    long timeoutNanos = timeout == null ? -1 : timeout.toNanos();
    if (cohort != null) {
      return cohort.acquire(thread, timeoutNanos, () -> new AcquireTimeoutException(name, timeout));
    }
    return new Acquisition(this, session, thread, true).tenure(timeoutNanos);
  }

  private Optional<Lease> acquireBlocking(Duration timeout, boolean timeoutThrows) {
    session.checkOpen();
    Thread thread = Thread.currentThread();
    Tenure held = heldByThread.get(thread);
    if (held != null && held.enter()) {
      if (held.state() == LeaseState.LOST) {
        held.exit();
        throw new SessionLostException("The lock " + name + " held by thread '" + thread.getName()
            + "' was lost (its key expired or was taken over in Redis); close its lease before acquiring again");
      }
      return Optional.of(held.newLease());
    }
    CompletableFuture<Tenure> pending;
    if (timeout != null && timeout.isZero()) {
      if (cohort != null && cohort.busy()) {
        return QueuedAcquisition.timedOut(name, timeout, timeoutThrows); // a thread of this client holds or queues: it is ahead
      }
      pending = tryOnce(thread);
    } else {
      pending = queue(thread, timeout);
    }
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

  /** One attempt that does not queue; completes with {@code null} if the lock is taken. */
  private CompletableFuture<Tenure> tryOnce(Thread thread) {
    return new Acquisition(this, session, thread, false).tenure(-1);
  }

  @Override
  public boolean isHeldByCurrentThread() {
    Tenure held = heldByThread.get(Thread.currentThread());
    return held != null && !held.ended();
  }

  @Override
  public Optional<LockOwner> holder() {
    if (keys.layout() == RedisLockLayout.REDISSON) {
      List<String> fields = read(session.commands().hkeys(keys.lock()).toCompletableFuture(), "reading the holder of ");
      if (fields.isEmpty()) {
        return Optional.empty();
      }
      String record = read(session.commands().get(keys.holderRecord()).toCompletableFuture(), "reading the holder of ");
      LockOwner recorded = record == null ? null : OwnerRecord.parse(record, Instant.EPOCH);
      if (recorded != null && fields.contains(recorded.node())) {
        return Optional.of(recorded);
      }
      return Optional.of(new LockOwner(fields.get(0), 0, "", 0, "", 0, Instant.EPOCH, false));
    }
    String value = read(session.commands().get(keys.lock()).toCompletableFuture(), "reading the holder of ");
    return value == null ? Optional.empty() : Optional.of(OwnerRecord.parse(value, Instant.EPOCH));
  }

  @Override
  public List<LockOwner> waiters() {
    List<?> reply = read(LockScripts.WAITERS.run(session.commands(), keys.all()), "reading the waiters of ");
    List<LockOwner> waiters = new ArrayList<>();
    for (int i = 0; i + 1 < reply.size(); i += 2) {
      Instant queuedAt = Instant.ofEpochMilli((long) Double.parseDouble(String.valueOf(reply.get(i + 1))));
      waiters.add(OwnerRecord.parse(String.valueOf(reply.get(i)), queuedAt));
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

  private static void checkTimeout(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout must not be null");
    if (timeout.isNegative()) {
      throw new IllegalArgumentException("timeout must not be negative, was " + timeout);
    }
  }

  /**
   * Deletes the lock {@code name} whoever holds it (either layout, or Redisson's read-write lock) and
   * wakes its waiters; the fencing counter stays, so the next token is larger. Logged at WARN with the
   * holder it removed.
   *
   * @return whether there was a lock to delete
   */
  public static boolean forceUnlock(RedisSession session, String name) {
    checkName(name);
    String[] keys = {name, LockKeys.tagged("baton_lock_queue", name), LockKeys.tagged("baton_lock_channel", name),
        LockKeys.tagged("baton_lock_holder", name), LockKeys.tagged("redisson_lock__channel", name),
        LockKeys.tagged("redisson_rwlock", name)};
    session.checkOneSlot(name, keys);
    List<?> reply = readNow(session, LockScripts.FORCE_UNLOCK.run(session.commands(), keys), "forcing the release of " + name);
    if (((Long) reply.get(0)) == 0L) {
      log.info("Forced release of {}: it was not held", name);
      return false;
    }
    log.warn("Forced the release of the lock {} on Redis at {}, held by {}: the next holder's fencing token is"
        + " larger, and the old holder's lease turns LOST at its next renewal", name, session.address(), reply.get(1));
    return true;
  }

  /**
   * Whether a lock (of any layout, or Redisson's read-write lock) is held on {@code name}: one {@code
   * TYPE} command.
   *
   * @throws dev.baton.BatonException if the key holds something other than a lock, naming it
   */
  public static boolean isLocked(RedisSession session, String name) {
    checkName(name);
    String kind = readNow(session, session.commands().type(name).toCompletableFuture(), "reading whether " + name + " is locked");
    switch (kind) {
      case "none":
        return false;
      case "string":
      case "hash":
        return true;
      default:
        throw new dev.baton.BatonException("The key " + name + " on Redis at " + session.address() + " holds a " + kind
            + ", not a lock");
    }
  }

  private static <T> T readNow(RedisSession session, CompletableFuture<T> reply, String what) {
    session.checkOpen();
    try {
      return reply.get(session.settings().commandTimeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BatonInterruptedException("Interrupted while " + what, e);
    } catch (ExecutionException | TimeoutException e) {
      throw RedisErrors.translate(e instanceof ExecutionException ? e.getCause() : e, session.address(), what);
    }
  }

  @Override
  public String toString() {
    return "RedisMutex[" + name + " on " + session.address() + ", " + options.layout() + "]";
  }
}
