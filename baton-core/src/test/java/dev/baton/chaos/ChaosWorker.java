package dev.baton.chaos;

import dev.baton.Baton;
import dev.baton.BatonException;
import dev.baton.ClientClosedException;
import dev.baton.leader.LeaderLatch;
import dev.baton.leader.LeadershipListener;
import dev.baton.lock.AcquireTimeoutException;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.testkit.MutualExclusionChecker.Section;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * One thread of a chaos client, taking one recipe in a loop and recording each critical section
 * in the recipe's checker. Every wait is bounded (acquisitions time out, holds and pauses are
 * waits on the worker's stop signal), so a worker ends soon after {@link #stop} whatever the
 * ensemble does. Timeouts and {@link BatonException}s are expected while faults run and are only
 * counted; any other exception is recorded as unexpected and fails the run.
 */
abstract class ChaosWorker implements Runnable {
  static final Duration ACQUIRE_TIMEOUT = Duration.ofSeconds(5);
  private static final int MAX_HOLD_MICROS = 15_000;
  /** Long holds, so that faults often strike a holder in the middle of its section. */
  private static final int LONG_HOLD_MIN_MICROS = 100_000;
  private static final int LONG_HOLD_MAX_MICROS = 1_500_000;
  private static final int MAX_PAUSE_MICROS = 5_000;
  /** Percentages of lock rounds that give up early: by a short timeout, by cancelling. */
  private static final int SHORT_TIMEOUT_PERCENT = 15;
  private static final int CANCELLED_PERCENT = 10;
  /** The longest a stalled holder keeps holding while it waits to be told of the fault. */
  private static final long MAX_STALL_MILLIS = 10_000;
  /** How long a lease found in doubt at release may take to reach its listener. */
  private static final long NOTICE_GRACE_MILLIS = 1_000;

  final String name;
  final ChaosRecipe recipe;
  final Random random;
  private final double longHoldShare;
  private final CountDownLatch stop = new CountDownLatch(1);
  private volatile boolean crashed;
  private volatile boolean inLongSection;
  private volatile BooleanSupplier stalled = () -> false;

  /** @param longHoldShare the share of sections held long (100 ms to 1.5 s) rather than briefly */
  ChaosWorker(String name, ChaosRecipe recipe, long seed, double longHoldShare) {
    this.name = name;
    this.recipe = recipe;
    this.random = new Random(seed);
    this.longHoldShare = longHoldShare;
  }

  /**
   * Ends the loop after the current round. {@code crash}: the client was killed, so the worker
   * leaves without cleaning up (a latch stays in the election until its session expires).
   */
  final void stop(boolean crash) {
    crashed = crash;
    stop.countDown();
  }

  final boolean stopping() {
    return stop.getCount() == 0;
  }

  /** Lets up to {@code micros} pass, less if the worker is stopped meanwhile. */
  final void pause(long micros) throws InterruptedException {
    stop.await(micros, TimeUnit.MICROSECONDS);
  }

  /** How long the next section lasts (unless a notice ends it). */
  final int holdMicros() {
    boolean longHold = random.nextDouble() < longHoldShare;
    int brief = random.nextInt(MAX_HOLD_MICROS);
    int extended = LONG_HOLD_MIN_MICROS + random.nextInt(LONG_HOLD_MAX_MICROS - LONG_HOLD_MIN_MICROS);
    return longHold ? extended : brief;
  }

  static boolean isLong(int holdMicros) {
    return holdMicros >= LONG_HOLD_MIN_MICROS;
  }

  /**
   * While {@code stalled} says so, a holder whose section is over keeps holding until it is told
   * its lease is in doubt (at most {@value #MAX_STALL_MILLIS} ms), as a process that stalls or
   * keeps working while its link is broken would.
   */
  final void stallWhile(BooleanSupplier stalled) {
    this.stalled = stalled;
  }

  /** Waits for {@code over} as long as the section lasts, and longer if stalled; true if it came. */
  final boolean holdUntil(CountDownLatch over, int micros) throws InterruptedException {
    if (over.await(micros, TimeUnit.MICROSECONDS)) {
      return true;
    }
    return stalled.getAsBoolean() && over.await(MAX_STALL_MILLIS, TimeUnit.MILLISECONDS);
  }

  /** Whether the worker is inside a long section whose lease it has not been told is in doubt. */
  final boolean inLongSection() {
    return inLongSection;
  }

  final void inLongSection(boolean inside) {
    inLongSection = inside;
  }

  @Override
  public final void run() {
    try {
      begin();
      while (!stopping()) {
        try {
          once();
        } catch (AcquireTimeoutException e) {
          recipe.timeouts.increment();
        } catch (ClientClosedException e) {
          if (!stopping()) {
            recipe.unexpected(name, e);
          }
        } catch (BatonException e) {
          recipe.failed(e);
        }
        pause(random.nextInt(MAX_PAUSE_MICROS));
      }
    } catch (InterruptedException e) {
      if (!crashed) {
        recipe.unexpected(name, e); // only a killed client's data workers are interrupted
      }
      Thread.currentThread().interrupt();
    } catch (RuntimeException | Error e) {
      recipe.unexpected(name, e);
    } finally {
      try {
        finish(crashed);
      } catch (RuntimeException e) {
        recipe.unexpected(name + " (finishing)", e);
      }
    }
  }

  /**
   * Whether a crash interrupts this worker's thread: a worker blocked in a call that has no
   * timeout of its own (a queue acknowledgement, a counter update, retried as the client's retry
   * policy says, without end) would otherwise wait for a link that never comes back. Lock workers
   * are not interrupted: their waits are bounded, and their sections must end as the run records.
   */
  boolean interruptedOnCrash() {
    return false;
  }

  /** Runs first, on the worker's thread. */
  void begin() {
  }

  /** One round: acquire (bounded), hold, release. */
  abstract void once() throws InterruptedException;

  /** Runs last, on the worker's thread; {@code crashed} as given to {@link #stop}. */
  void finish(boolean crashed) {
  }

  /**
   * Takes a lock-like recipe (a mutex, either half of a read-write lock, or a semaphore permit),
   * blocking with a timeout or asynchronously; {@code shared} picks a read-write lock's read half.
   */
  interface Acquirer {
    Lease acquire(boolean shared, Duration timeout);

    CompletableFuture<Lease> acquireAsync(boolean shared);

    static Acquirer of(BiFunction<Boolean, Duration, Lease> blocking,
        Function<Boolean, CompletableFuture<Lease>> async) {
      return new Acquirer() {
        @Override
        public Lease acquire(boolean shared, Duration timeout) {
          return blocking.apply(shared, timeout);
        }

        @Override
        public CompletableFuture<Lease> acquireAsync(boolean shared) {
          return async.apply(shared);
        }
      };
    }
  }

  /**
   * A worker of a lock-like recipe. The section is entered right after the grant and ends at the
   * first SUSPECT or LOST notice (marked lost) or just before the release (exit), so the recorded
   * section lies inside the time the holder could trust its lease.
   *
   * <p>Most rounds wait up to {@link #ACQUIRE_TIMEOUT}; some give up early, by a short timeout or
   * by cancelling an asynchronous acquisition, as impatient callers do: a waiter that leaves
   * removes its node and its watches while faults strike.
   */
  static final class LockWorker extends ChaosWorker {
    private final Acquirer acquirer;
    private final double sharedShare;

    /** @param sharedShare the share of rounds that take the shared (read) side */
    LockWorker(String name, ChaosRecipe recipe, long seed, double longHoldShare, double sharedShare,
        Acquirer acquirer) {
      super(name, recipe, seed, longHoldShare);
      this.acquirer = acquirer;
      this.sharedShare = sharedShare;
    }

    @Override
    void once() throws InterruptedException {
      boolean shared = random.nextDouble() < sharedShare;
      int hold = holdMicros();
      int patience = random.nextInt(100);
      Duration shortWait = Duration.ofMillis(20 + random.nextInt(280));
      Lease lease;
      if (patience < SHORT_TIMEOUT_PERCENT) {
        lease = acquirer.acquire(shared, shortWait);
      } else if (patience < SHORT_TIMEOUT_PERCENT + CANCELLED_PERCENT) {
        lease = acquireOrCancel(shared, shortWait);
        if (lease == null) {
          return;
        }
      } else {
        lease = acquirer.acquire(shared, ACQUIRE_TIMEOUT);
      }
      try {
        hold(lease, shared, hold);
      } finally {
        lease.close();
      }
    }

    /** Queues asynchronously and cancels after {@code wait}; null if the cancel withdrew it. */
    private Lease acquireOrCancel(boolean shared, Duration wait) throws InterruptedException {
      CompletableFuture<Lease> pending = acquirer.acquireAsync(shared);
      try {
        return pending.get(wait.toNanos(), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        if (pending.cancel(true)) {
          recipe.cancels.increment();
          return null;
        }
        return pending.join(); // granted as it was given up: the lease is ours to use and close
      } catch (ExecutionException e) {
        if (e.getCause() instanceof RuntimeException failure) {
          throw failure;
        }
        throw new IllegalStateException(e.getCause());
      }
    }

    private void hold(Lease lease, boolean shared, int micros) throws InterruptedException {
      CountDownLatch notice = new CountDownLatch(1);
      AtomicReference<Section> section = new AtomicReference<>();
      // Direct executor: the notice is recorded the moment the lease reports it, as a holder
      // that stops work in its listener would stop.
      lease.addListener((l, state) -> {
        if (state == LeaseState.SUSPECT || state == LeaseState.LOST) {
          inLongSection(false);
          notice.countDown();
          Section entered = section.get();
          if (entered != null) {
            entered.lost();
          }
        }
      }, Runnable::run);
      if (!lease.isValid()) {
        // In doubt before the holder could start: it must not act, and another may hold already.
        recipe.invalidAtGrant.increment();
        return;
      }
      Section entered = recipe.enter(name, lease.fencingToken(), shared);
      section.set(entered);
      if (notice.getCount() == 0 || !lease.isValid()) {
        entered.lost(); // the notice came between the check and the entry
      } else if (isLong(micros)) {
        inLongSection(true);
      }
      boolean told = holdUntil(notice, micros);
      inLongSection(false);
      entered.exit();
      if (told) {
        recipe.lostNotices.increment();
        return;
      }
      LeaseState state = lease.state();
      if ((state == LeaseState.SUSPECT || state == LeaseState.LOST)
          && !notice.await(NOTICE_GRACE_MILLIS, TimeUnit.MILLISECONDS)) {
        recipe.problems.add(name + "'s lease (token " + lease.fencingToken() + ") is " + state
            + " but its listener was not told within " + NOTICE_GRACE_MILLIS + " ms");
      }
    }
  }

  /**
   * A participant of the leader election. Each term of leadership is a section, entered with the
   * leadership's fencing token when the latch tells it gained, lost when told it is lost (exit
   * when it stepped down). A leader steps down after a short hold by closing its leadership lease,
   * so the lead keeps changing hands. Told its lead is in doubt, it steps down half the time, and
   * otherwise stays in the election to see whether the same term comes back.
   *
   * <p>A latch whose suspended connection comes back on the same session is told it leads again,
   * with the same lease: that term is not entered again (the checker would refuse its equal
   * token). Instead the worker steps down at once, and both at the regain and at the loss after
   * it, a participant that entered with a larger token meanwhile is reported: that would be two
   * leaders, since a larger token means a later node led while ours was still first.
   */
  static final class LatchWorker extends ChaosWorker implements LeadershipListener {
    private final Baton baton;
    private LeaderLatch latch;
    // Guarded by this; called back on the threads the latch reports on.
    private Section section;
    private long termToken = Long.MIN_VALUE;
    private boolean regained;
    private CountDownLatch termOver = new CountDownLatch(0);

    LatchWorker(String name, ChaosRecipe recipe, long seed, double longHoldShare, Baton baton) {
      super(name, recipe, seed, longHoldShare);
      this.baton = baton;
    }

    @Override
    void begin() {
      latch = baton.leaderLatch(recipe.path, name);
      latch.addListener(this, Runnable::run);
      latch.start();
    }

    @Override
    void once() throws InterruptedException {
      if (!latch.await(Duration.ofSeconds(1))) {
        return;
      }
      CountDownLatch over;
      synchronized (this) {
        over = termOver;
      }
      int hold = holdMicros();
      boolean regainedTerm = over.getCount() == 0;
      inLongSection(isLong(hold) && !regainedTerm);
      // Ends early when the term is lost, or at once when the latch leads again on a term that
      // was already lost: then the worker lets go of what is left of it.
      boolean lost = holdUntil(over, hold);
      inLongSection(false);
      if (lost && !regainedTerm && random.nextBoolean()) {
        // Told the lead is in doubt: half the time stay in the election and see what comes of
        // it (the same term back once the session reconnects, or a new place in the queue).
        return;
      }
      latch.leadership().ifPresent(Lease::close); // step down; the latch joins again at the back
    }

    @Override
    void finish(boolean crashed) {
      if (latch != null && !crashed) {
        latch.close();
      }
    }

    @Override
    public synchronized void leadershipGained(Lease leadership) {
      long token = leadership.fencingToken();
      if (token == termToken) {
        recipe.regains.increment();
        regained = true;
        checkNoLaterLeader("led again");
        return;
      }
      termToken = token;
      regained = false;
      termOver = new CountDownLatch(1);
      section = recipe.enter(name, token, false);
    }

    @Override
    public synchronized void leadershipLost(Lease leadership) {
      if (regained) {
        checkNoLaterLeader("was still leading");
        regained = false;
      }
      if (section != null) {
        LeaseState state = leadership.state();
        if (state == LeaseState.SUSPECT || state == LeaseState.LOST) {
          section.lost();
          recipe.lostNotices.increment();
        }
        inLongSection(false);
        section.exit();
        section = null;
      }
      termOver.countDown();
    }

    private void checkNoLaterLeader(String what) {
      long highest = recipe.highestToken.get();
      if (highest > termToken) {
        recipe.problems.add(name + " " + what + " with token " + termToken + " after a participant entered with"
            + " token " + highest);
      }
    }
  }
}
