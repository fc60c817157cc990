package dev.baton.shedlock;

import dev.baton.Baton;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.Mutex;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * A ShedLock {@code LockProvider} on Baton's mutex: a scheduled job annotated {@code
 * @SchedulerLock(name = "report")} runs on one node at a time. Works on either backend:
 *
 * <pre>{@code
 * @Bean LockProvider lockProvider(Baton baton) { return BatonLockProvider.zookeeper(baton, "/shedlock"); }
 * @Bean LockProvider lockProvider(RedisBaton redis) { return new BatonLockProvider(redis::mutex, "shedlock:"); }
 * }</pre>
 *
 * <p>How ShedLock's settings map onto a lease:
 * <ul>
 *   <li>{@code lock} tries once and never waits ({@code tryAcquire(Duration.ZERO)}): a node that
 *       does not get the lock skips the run, as ShedLock expects. A name this provider already
 *       holds is refused without a request, so a lock is never reentrant, whatever the backend.
 *   <li>{@code lockAtMostFor}: the lease is released when it passes even if the job still runs.
 *       Unlike ShedLock's storage-based providers, a crashed node's lock does not wait for it: the
 *       ZooKeeper session (or the Redis TTL) ends it sooner.
 *   <li>{@code lockAtLeastFor}: {@code unlock()} before it passes keeps the lease until it does.
 *       Only while this process lives: if it dies meanwhile, the lock goes with its session, where
 *       a storage-based provider would keep the lock until the time written in the store.
 *   <li>Connection loss: a lease that turns {@code LOST} (session expired) is forgotten, so the next
 *       run can lock again; the job that was running is not stopped (ShedLock has no way to tell it).
 *       Use {@link #currentLease} in the job to check and to read the fencing token.
 *   <li>{@code extend(lockAtMostFor, lockAtLeastFor)} moves both deadlines, counted from now, and
 *       hands back a new lock; the old one then refuses {@code unlock} and {@code extend}.
 * </ul>
 *
 * <p>Close the provider on shutdown: it releases what it holds and stops its timer thread.
 */
public final class BatonLockProvider implements ExtensibleLockProvider, AutoCloseable {
  private final Function<String, Mutex> mutexes;
  private final String prefix;
  private final Map<String, HeldJobLock> held = new ConcurrentHashMap<>();
  private final ScheduledExecutorService timer;

  /**
   * Locks named {@code prefix + name} from {@code mutexes}: {@code redis::mutex} with a key prefix
   * such as {@code "shedlock:"}, or any function giving a non-reentrant use of a {@link Mutex}.
   */
  public BatonLockProvider(Function<String, Mutex> mutexes, String prefix) {
    this(mutexes, prefix, Executors.newSingleThreadScheduledExecutor(r -> {
      Thread thread = new Thread(r, "baton-shedlock-timer");
      thread.setDaemon(true);
      return thread;
    }));
  }

  /**
   * With the deadlines run on {@code timer}, which the provider owns from now on ({@link #close()}
   * shuts it down): a single-threaded timer runs them in the order they fall due, so whoever shares
   * it can tell that a deadline has passed without guessing at wall-clock time.
   */
  BatonLockProvider(Function<String, Mutex> mutexes, String prefix, ScheduledExecutorService timer) {
    this.mutexes = Objects.requireNonNull(mutexes, "mutexes");
    this.prefix = Objects.requireNonNull(prefix, "prefix");
    this.timer = Objects.requireNonNull(timer, "timer");
  }

  /**
   * On ZooKeeper: the lock of job {@code name} is the node {@code <root>/<name>}, a Baton
   * semaphore mutex (not reentrant, releasable from the timer thread).
   *
   * @throws IllegalArgumentException if {@code root} is not an absolute path
   */
  public static BatonLockProvider zookeeper(Baton baton, String root) {
    Objects.requireNonNull(baton, "baton");
    if (root == null || !root.startsWith("/")) {
      throw new IllegalArgumentException("ShedLock root '" + root + "' must be an absolute path such as /shedlock");
    }
    return new BatonLockProvider(baton::semaphoreMutex, root.endsWith("/") ? root : root + "/");
  }

  /**
   * Tries once to lock the job {@code configuration.getName()}.
   *
   * @return empty if another node (or another thread here) holds it, or if the backend answered
   *     that it is taken; backend errors (connection lost, client closed) are thrown, unchecked, and
   *     ShedLock then skips the run
   */
  @Override
  public Optional<SimpleLock> lock(LockConfiguration configuration) {
    String name = configuration.getName();
    HeldJobLock claim = HeldJobLock.claim(name, timer, held::remove);
    if (held.putIfAbsent(name, claim) != null) {
      return Optional.empty();
    }
    Optional<Lease> lease;
    try {
      lease = mutexes.apply(prefix + name).tryAcquire(Duration.ZERO);
    } catch (RuntimeException e) {
      held.remove(name, claim);
      throw e;
    }
    if (lease.isEmpty()) {
      held.remove(name, claim);
      return Optional.empty();
    }
    SimpleLock handle = claim.start(lease.get(), configuration.getLockAtMostFor(), configuration.getLockAtLeastFor());
    lease.get().addListener((l, state) -> {
      if (state == LeaseState.LOST) {
        claim.releaseNow();
      }
    });
    return Optional.of(handle);
  }

  /** The lease of job {@code name} while this provider holds it: its state and fencing token. */
  public Optional<Lease> currentLease(String name) {
    HeldJobLock lock = held.get(name);
    return lock == null ? Optional.empty() : lock.lease();
  }

  /** Releases every lock this provider holds, at once (lockAtLeastFor is not waited for), and stops its timer. */
  @Override
  public void close() {
    held.values().forEach(HeldJobLock::releaseNow);
    timer.shutdownNow();
  }
}
