package dev.baton.internal.observe;

import dev.baton.BatonObserver;
import dev.baton.ConnectionState;
import dev.baton.FencingTokens;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.Mutex;
import dev.baton.lock.ReadWriteLock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client's link to its observer: wraps the mutexes it hands out and tells the observer what
 * they do, shielding the locks from the observer's failures.
 *
 * <p>How a grant is told apart without asking the recipe: a lease whose {@link FencingTokens
 * token} has non-zero local bits was served by a node this client already had. If a lease of the
 * same path was held in this client when the acquisition started, the node came from that holder
 * (a hand-over); otherwise it had been kept after a release (the cache).
 */
public final class Observation {
  private static final Logger log = LoggerFactory.getLogger(Observation.class);
  private static final long LOCAL_MASK = FencingTokens.PER_NODE - 1;

  private final BatonObserver observer;
  private final Map<String, AtomicInteger> heldByPath = new ConcurrentHashMap<>();

  private Observation(BatonObserver observer) {
    this.observer = observer;
  }

  /** {@code null} when there is no observer: the client then wraps nothing. */
  public static Observation of(BatonObserver observer) {
    return observer == null ? null : new Observation(observer);
  }

  public Mutex mutex(String recipe, Mutex mutex) {
    return new ObservedMutex(this, recipe, mutex);
  }

  public ReadWriteLock readWriteLock(ReadWriteLock lock) {
    return new ObservedReadWriteLock(this, lock);
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

  void granted(String recipe, String path, Lease lease, long startNanos, boolean reentrant, boolean busyAtStart) {
    long grantedAt = System.nanoTime();
    BatonObserver.Grant grant = reentrant ? BatonObserver.Grant.REENTRANT
        : (lease.fencingToken() & LOCAL_MASK) == 0 ? BatonObserver.Grant.QUEUED
        : busyAtStart ? BatonObserver.Grant.LOCAL_HAND_OVER : BatonObserver.Grant.CACHED;
    heldByPath.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
    tell(o -> o.acquired(recipe, path, Duration.ofNanos(grantedAt - startNanos), grant));
    // The hold ends at the first final state: a release after a loss is not a second end.
    AtomicBoolean ended = new AtomicBoolean();
    lease.addListener((l, state) -> {
      if (state == LeaseState.SUSPECT) {
        tell(o -> o.leaseLost(recipe, path, BatonObserver.Loss.SUSPECT));
      } else if ((state == LeaseState.RELEASED || state == LeaseState.LOST) && ended.compareAndSet(false, true)) {
        heldByPath.get(path).decrementAndGet();
        if (state == LeaseState.LOST) {
          tell(o -> o.leaseLost(recipe, path, BatonObserver.Loss.LOST));
        } else {
          tell(o -> o.released(recipe, path, Duration.ofNanos(System.nanoTime() - grantedAt)));
        }
      }
    }, Runnable::run);
  }

  void failed(String recipe, String path, long startNanos, Throwable cause) {
    tell(o -> o.acquireFailed(recipe, path, Duration.ofNanos(System.nanoTime() - startNanos), cause));
  }

  private void tell(Consumer<BatonObserver> call) {
    try {
      call.accept(observer);
    } catch (RuntimeException e) {
      log.warn("The Baton observer {} failed; the lock is not affected", observer, e);
    }
  }
}
