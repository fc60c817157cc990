package dev.baton.internal.observe;

import dev.baton.BatonObserver;
import dev.baton.ConnectionState;
import dev.baton.FencingTokens;
import dev.baton.leader.LeaderLatch;
import dev.baton.leader.LeaderSelector;
import dev.baton.leader.LeadershipListener;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseListener;
import dev.baton.lock.LeaseState;
import dev.baton.lock.Mutex;
import dev.baton.lock.ReadWriteLock;
import dev.baton.lock.Semaphore;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client's link to its observer: wraps the mutexes and semaphores it hands out, listens to its
 * elections and queues, and tells the observer what they do, shielding the recipes from the
 * observer's failures.
 *
 * <p>How a grant is told apart without asking the recipe: on ZooKeeper, a lease whose {@link
 * FencingTokens token} has non-zero local bits was served by a node this client already had (other
 * backends say it through a predicate of their own). If a lease of the
 * same path was held in this client when the acquisition started, the node came from that holder
 * (a hand-over); otherwise it had been kept after a release (the cache).
 */
public final class Observation {
  private static final Logger log = LoggerFactory.getLogger(Observation.class);
  private static final long LOCAL_MASK = FencingTokens.PER_NODE - 1;

  private final String backend;
  private final BatonObserver observer;
  private final Predicate<Lease> servedLocally;
  private final Map<String, AtomicInteger> heldByPath = new ConcurrentHashMap<>();

  private Observation(String backend, BatonObserver observer, Predicate<Lease> servedLocally) {
    this.backend = backend;
    this.observer = observer;
    this.servedLocally = servedLocally;
  }

  /** For a ZooKeeper client; {@code null} when there is no observer: the client then wraps nothing. */
  public static Observation of(BatonObserver observer) {
    return of("zookeeper", observer, lease -> (lease.fencingToken() & LOCAL_MASK) != 0);
  }

  /**
   * For a backend whose tokens say nothing of how a lease was served: {@code servedLocally} tells
   * a lease that no request granted (handed over, or cached). {@code null} without an observer.
   */
  public static Observation of(BatonObserver observer, Predicate<Lease> servedLocally) {
    return of("other", observer, servedLocally);
  }

  /**
   * As {@link #of(BatonObserver, Predicate)}, naming the {@code backend} ({@code "redis"}) that
   * {@link BatonObserver#acquisitionStarted} is told.
   */
  public static Observation of(String backend, BatonObserver observer, Predicate<Lease> servedLocally) {
    return observer == null ? null : new Observation(backend, observer, servedLocally);
  }

  public Mutex mutex(String recipe, Mutex mutex) {
    return new ObservedMutex(this, recipe, mutex);
  }

  public ReadWriteLock readWriteLock(ReadWriteLock lock) {
    return new ObservedReadWriteLock(this, lock);
  }

  public Semaphore semaphore(Semaphore semaphore) {
    return new ObservedSemaphore(this, semaphore);
  }

  /** Tells the observer when {@code latch} gains or loses leadership. */
  public LeaderLatch leaderLatch(LeaderLatch latch) {
    latch.addListener(leadership("leader-latch", latch.path()), Runnable::run);
    return latch;
  }

  /** Tells the observer when {@code selector} gains or loses leadership. */
  public LeaderSelector leaderSelector(LeaderSelector selector) {
    selector.addListener(leadership("leader-selector", selector.path()), Runnable::run);
    return selector;
  }

  private LeadershipListener leadership(String recipe, String path) {
    return new LeadershipListener() {
      @Override
      public void leadershipGained(Lease leadership) {
        tell(o -> o.leadershipGained(recipe, path));
      }

      @Override
      public void leadershipLost(Lease leadership) {
        tell(o -> o.leadershipLost(recipe, path));
      }
    };
  }

  /** What a queue on {@code path} reports its items' events to. */
  public Consumer<BatonObserver.QueueEvent> queue(String path) {
    return event -> tell(o -> o.queueItem(path, event));
  }

  /** The mutex a wrapper stands for, for code that must see the recipe's own object. */
  public static Mutex unwrap(Mutex mutex) {
    return mutex instanceof ObservedMutex observed ? observed.delegate() : mutex;
  }

  public void connectionStateChanged(ConnectionState state) {
    tell(o -> o.connectionStateChanged(state));
  }

  boolean anyHeld(String path) {
    AtomicInteger count = heldByPath.get(path);
    return count != null && count.get() > 0;
  }

  /** Tells the observer an acquisition starts, on the caller's thread, and what follows it. */
  BatonObserver.Acquisition start(String recipe, String path) {
    try {
      BatonObserver.Acquisition acquisition = observer.acquisitionStarted(backend, recipe, path);
      return acquisition == null ? BatonObserver.Acquisition.NONE : acquisition;
    } catch (RuntimeException e) {
      log.warn("The Baton observer {} failed; the lock is not affected", observer, e);
      return BatonObserver.Acquisition.NONE;
    }
  }

  void granted(String recipe, String path, Lease lease, long startNanos, boolean reentrant, boolean busyAtStart,
      BatonObserver.Acquisition acquisition) {
    long grantedAt = System.nanoTime();
    BatonObserver.Grant grant = reentrant ? BatonObserver.Grant.REENTRANT
        : !servedLocally.test(lease) ? BatonObserver.Grant.QUEUED
        : busyAtStart ? BatonObserver.Grant.LOCAL_HAND_OVER : BatonObserver.Grant.CACHED;
    heldByPath.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
    tell(o -> o.acquired(recipe, path, Duration.ofNanos(grantedAt - startNanos), grant));
    long token = lease.fencingToken();
    follow(acquisition, a -> a.granted(grant, token));
    // The hold ends at the first final state: a release after a loss is not a second end.
    AtomicBoolean ended = new AtomicBoolean();
    // Only a lease that was SUSPECT can be restored: a HELD told on registration is not a change.
    AtomicBoolean suspect = new AtomicBoolean();
    LeaseListener onState = (l, state) -> {
      if (state == LeaseState.SUSPECT) {
        suspect.set(true);
        tell(o -> o.leaseLost(recipe, path, BatonObserver.Loss.SUSPECT));
        follow(acquisition, a -> a.leaseLost(BatonObserver.Loss.SUSPECT));
      } else if (state == LeaseState.HELD && suspect.compareAndSet(true, false)) {
        follow(acquisition, BatonObserver.Acquisition::leaseRestored);
      } else if ((state == LeaseState.RELEASED || state == LeaseState.LOST) && ended.compareAndSet(false, true)) {
        heldByPath.get(path).decrementAndGet();
        if (state == LeaseState.LOST) {
          tell(o -> o.leaseLost(recipe, path, BatonObserver.Loss.LOST));
          follow(acquisition, a -> a.leaseLost(BatonObserver.Loss.LOST));
        } else {
          tell(o -> o.released(recipe, path, Duration.ofNanos(System.nanoTime() - grantedAt)));
          follow(acquisition, BatonObserver.Acquisition::released);
        }
      }
    };
    lease.addListener(onState, Runnable::run);
    // A listener hears only later changes: an asynchronous grant is observed on the completing
    // thread, after the caller may already have released the lease, or lost it.
    LeaseState now = lease.state();
    if (now == LeaseState.RELEASED || now == LeaseState.LOST) {
      onState.stateChanged(lease, now);
    }
  }

  /** Runs a blocking acquisition and tells how it went. */
  Lease blocking(String recipe, String path, boolean reentrant, Supplier<Lease> acquire) {
    BatonObserver.Acquisition acquisition = start(recipe, path);
    long start = System.nanoTime();
    boolean busy = anyHeld(path);
    Lease lease;
    try {
      lease = acquire.get();
    } catch (RuntimeException e) {
      failed(recipe, path, start, e, acquisition);
      throw e;
    }
    granted(recipe, path, lease, start, reentrant, busy, acquisition);
    return lease;
  }

  /** Runs an acquisition that may time out without an exception, and tells how it went. */
  Optional<Lease> trying(String recipe, String path, boolean reentrant, Supplier<Optional<Lease>> acquire) {
    BatonObserver.Acquisition acquisition = start(recipe, path);
    long start = System.nanoTime();
    boolean busy = anyHeld(path);
    Optional<Lease> lease;
    try {
      lease = acquire.get();
    } catch (RuntimeException e) {
      failed(recipe, path, start, e, acquisition);
      throw e;
    }
    lease.ifPresentOrElse(l -> granted(recipe, path, l, start, reentrant, busy, acquisition),
        () -> failed(recipe, path, start, null, acquisition));
    return lease;
  }

  /**
   * Starts an asynchronous acquisition and tells how it went. Observes a dependent stage but hands
   * back the recipe's own future, so that cancelling it still withdraws the waiter.
   */
  CompletableFuture<Lease> async(String recipe, String path, Supplier<CompletableFuture<Lease>> acquire) {
    // Started here, on the caller's thread: the outcome comes on whichever thread completes it.
    BatonObserver.Acquisition acquisition = start(recipe, path);
    long start = System.nanoTime();
    boolean busy = anyHeld(path);
    CompletableFuture<Lease> future;
    try {
      future = acquire.get();
    } catch (RuntimeException e) {
      failed(recipe, path, start, e, acquisition);
      throw e;
    }
    future.whenComplete((lease, error) -> {
      if (lease != null) {
        granted(recipe, path, lease, start, false, busy, acquisition);
      } else {
        failed(recipe, path, start, error, acquisition);
      }
    });
    return future;
  }

  void failed(String recipe, String path, long startNanos, Throwable cause, BatonObserver.Acquisition acquisition) {
    tell(o -> o.acquireFailed(recipe, path, Duration.ofNanos(System.nanoTime() - startNanos), cause));
    follow(acquisition, a -> a.failed(cause));
  }

  /** Tells one acquisition's follower, if the observer follows acquisitions at all. */
  private void follow(BatonObserver.Acquisition acquisition, Consumer<BatonObserver.Acquisition> call) {
    if (acquisition == BatonObserver.Acquisition.NONE) {
      return; // the common case (metrics only): nobody follows this acquisition
    }
    try {
      call.accept(acquisition);
    } catch (RuntimeException e) {
      log.warn("The Baton observer {} failed; the lock is not affected", observer, e);
    }
  }

  private void tell(Consumer<BatonObserver> call) {
    try {
      call.accept(observer);
    } catch (RuntimeException e) {
      log.warn("The Baton observer {} failed; the lock is not affected", observer, e);
    }
  }
}
