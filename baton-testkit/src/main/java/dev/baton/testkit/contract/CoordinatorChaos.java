package dev.baton.testkit.contract;

import dev.baton.ClientClosedException;
import dev.baton.Coordinator;
import dev.baton.OutcomeUnknownException;
import dev.baton.atomic.Counter;
import dev.baton.leader.LeaderLatch;
import dev.baton.leader.LeadershipListener;
import dev.baton.lock.FencedResource;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.Mutex;
import dev.baton.lock.ReadWriteLock;
import dev.baton.lock.Semaphore;
import dev.baton.lock.StaleTokenException;
import dev.baton.testkit.ChaosRun;
import dev.baton.testkit.MutualExclusionChecker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;

/**
 * One chaos run of any backend through its {@link ContractBackend}: clients work on a mutex, a
 * read-write lock and a semaphore (holders of the locks write through a fenced resource), a leader
 * latch whose leaders write through a fence too, and a counter (each workload where the backend's
 * {@link ContractBackend#features()} have it), while faults drawn from the run's seed strike (a
 * client's link cut briefly or past the lease timeout, the server restarted, a link cut just after
 * the server applied a request so its reply is lost, the mutex's key deleted under its holder
 * where the backend can, and in the workload itself holders that stall past the lease timeout);
 * the history is then checked and summed up in
 * a {@link ChaosReport}.
 *
 * <p>Every wait is bounded: acquisitions time out, a stall waits on the run's stop, and the end of
 * the run waits a bounded time for every worker, counting one that does not end as a hang.
 */
public final class CoordinatorChaos {
  private static final String MUTEX = "/chaos/mutex";
  private static final String READ_WRITE = "/chaos/rwlock";
  private static final String SEMAPHORE = "/chaos/semaphore";
  private static final String LEADER = "/chaos/leader";
  private static final String COUNTER = "/chaos/counter";
  private static final int CLIENTS = 3;
  private static final int THREADS_PER_LOCK_PER_CLIENT = 2;
  private static final int PERMITS = 2;
  /** How much later than its timeout an acquisition may return before it counts as hung. */
  private static final Duration HANG_SLACK = Duration.ofSeconds(5);
  /** How often a leader writes through the fence while it leads. */
  private static final Duration LEADER_WRITE_EVERY = Duration.ofMillis(20);

  private final ContractBackend backend;
  private final ChaosRun run;
  private final Duration leaseTimeout;
  private final Duration acquireTimeout;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final List<Coordinator> clients = new ArrayList<>();
  private final Map<String, Integer> faults = new TreeMap<>();
  private final List<String> schedule = new ArrayList<>();
  private long faultsStartedNanos;

  private final LockWorkload mutexWork = new LockWorkload("mutex",
      "entered before an earlier holder was told of its loss", MutualExclusionChecker.exclusive(), true);
  private final LockWorkload readWriteWork = new LockWorkload("read-write lock",
      "entered beside a writer (or, as a writer, beside anyone) not yet told of its loss",
      MutualExclusionChecker.exclusive(), true);
  private final LockWorkload semaphoreWork = new LockWorkload("semaphore of " + PERMITS,
      "entered while " + PERMITS + " holders not yet told of their loss held permits",
      MutualExclusionChecker.withCapacity(PERMITS), false);

  private final MutualExclusionChecker leaderChecker = MutualExclusionChecker.withCapacity(1);
  private final Map<String, MutualExclusionChecker.Section> terms = new ConcurrentHashMap<>();
  private final LongAccumulator highestLeaderToken = new LongAccumulator(Math::max, Long.MIN_VALUE);
  private final AtomicLong leaderTerms = new AtomicLong();
  private final AtomicLong leaderTokenRegressions = new AtomicLong();
  private final FencedResource<long[]> leaderResource = new FencedResource<>("the leaders' resource", new long[1]);
  private final AtomicLong leaderWrites = new AtomicLong();
  private final AtomicLong deposedRefused = new AtomicLong();
  private final AtomicLong deposedAccepted = new AtomicLong();
  private final AtomicLong leaderStaleAccepted = new AtomicLong();

  private final AtomicLong increments = new AtomicLong();
  private final AtomicLong unknownIncrements = new AtomicLong();

  public CoordinatorChaos(ContractBackend backend, ChaosRun run) {
    this.backend = backend;
    this.run = run;
    this.leaseTimeout = backend.leaseTimeout();
    this.acquireTimeout = leaseTimeout.multipliedBy(2);
  }

  /** Runs the workloads under faults for the run's duration and checks what they recorded. */
  public ChaosReport run() throws InterruptedException {
    boolean readWrite = backend.features().contains(Feature.READ_WRITE_LOCK);
    boolean semaphore = backend.features().contains(Feature.SEMAPHORE);
    boolean leader = backend.features().contains(Feature.LEADER_LATCH);
    boolean counter = backend.features().contains(Feature.COUNTER);
    ExecutorService threads = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "chaos-worker");
      t.setDaemon(true);
      return t;
    });
    List<Future<?>> workers = new ArrayList<>();
    List<LeaderLatch> latches = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    try {
      // Every client connects before any worker starts, so that no handshake competes with the load.
      for (int c = 0; c < CLIENTS; c++) {
        clients.add(backend.newClient());
      }
      for (int c = 0; c < CLIENTS; c++) {
        Coordinator client = clients.get(c);
        String name = "client-" + c;
        List<Door> mutexDoors = doors(client, Feature.MUTEX);
        List<Door> readWriteDoors = readWrite ? doors(client, Feature.READ_WRITE_LOCK) : List.of();
        List<Door> semaphoreDoors = semaphore ? doors(client, Feature.SEMAPHORE) : List.of();
        for (int t = 0; t < THREADS_PER_LOCK_PER_CLIENT; t++) {
          String who = name + "/" + t;
          Random random = new Random(run.seed() * 31 + c * 7L + t);
          workers.add(threads.submit(() -> lockWorker(mutexWork, mutexDoors, who, random)));
          if (readWrite) {
            Random rw = new Random(run.seed() * 37 + c * 7L + t);
            workers.add(threads.submit(() -> lockWorker(readWriteWork, readWriteDoors, who, rw)));
          }
          if (semaphore) {
            Random sem = new Random(run.seed() * 41 + c * 7L + t);
            workers.add(threads.submit(() -> lockWorker(semaphoreWork, semaphoreDoors, who, sem)));
          }
        }
        if (leader) {
          LeaderLatch latch = joinElection(client, name);
          latches.add(latch);
          workers.add(threads.submit(() -> leaderWorker(latch)));
        }
        if (counter) {
          Counter shared = client.counter(COUNTER);
          workers.add(threads.submit(() -> counterWorker(shared)));
        }
      }
      injectFaults();
    } finally {
      stopped.countDown();
      run.log().add("faults over; stopping the workers");
      clients.forEach(this::restoreQuietly);
    }
    long deadline = System.nanoTime() + acquireTimeout.plus(leaseTimeout).plus(HANG_SLACK).toNanos();
    for (Future<?> worker : workers) {
      try {
        worker.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        problems.add("a worker did not stop within its bound: an acquisition or release hung");
        worker.cancel(true);
      } catch (java.util.concurrent.ExecutionException e) {
        problems.add("a worker failed: " + e.getCause());
      }
    }
    threads.shutdownNow();
    problems.addAll(recoveryProblems(readWrite, semaphore));
    latches.forEach(LeaderLatch::close);

    ChaosReport.LockFigures mutexFigures = mutexWork.figures();
    ChaosReport.LockFigures readWriteFigures = readWrite ? readWriteWork.figures() : null;
    ChaosReport.LockFigures semaphoreFigures = semaphore ? semaphoreWork.figures() : null;
    ChaosReport.LeadershipFigures leaderFigures = leader
        ? new ChaosReport.LeadershipFigures(leaderTerms.get(), leaderChecker.violations().size(),
            leaderTokenRegressions.get(), leaderWrites.get(), deposedRefused.get(), deposedAccepted.get(),
            leaderStaleAccepted.get())
        : null;
    ChaosReport.CounterFigures counterFigures = counter ? counterFigures(problems) : null;
    List<ChaosReport.LockFigures> locks = new ArrayList<>();
    locks.add(mutexFigures);
    if (readWriteFigures != null) {
      locks.add(readWriteFigures);
    }
    if (semaphoreFigures != null) {
      locks.add(semaphoreFigures);
    }
    boolean keyDeletionPromised = !backend.notPromised().contains(Promise.LOSS_TOLD_BEFORE_REGRANT_WHEN_KEY_DELETED);
    List<String> all = new ArrayList<>(ChaosReport.safetyProblems(locks, keyDeletionPromised, leaderFigures,
        counterFigures));
    all.addAll(problems);
    for (LockWorkload work : List.of(mutexWork, readWriteWork, semaphoreWork)) {
      // The violations that fail the run, for the failure message; the rest are in the table.
      (keyDeletionPromised ? work.checker : work.excusingDeletions).violations().stream().limit(5)
          .forEach(v -> all.add(work.name + ": " + v));
    }
    if (leader) {
      leaderChecker.violations().stream().limit(5).forEach(v -> all.add("leader: " + v));
    }
    return new ChaosReport(backend.name(), run.seed(), run.duration(), Map.copyOf(faults), List.copyOf(schedule),
        mutexWork.deletions.get() / 2, keyDeletionPromised,
        mutexFigures, readWriteFigures, semaphoreFigures, leaderFigures, counterFigures, List.copyOf(all));
  }

  /** The kinds of fault a run draws from; the last only where the backend can delete a lock's key. */
  private enum FaultKind { SHORT_CUT, LONG_CUT, SERVER_RESTART, LOST_REPLY, LOCK_KEY_DELETED }

  /**
   * Faults from the seed, one after another, until the run's duration has passed and every kind
   * has struck once: the first faults are every kind once in an order drawn from the seed, so
   * even the build's short run meets each kind; then kinds at random.
   */
  private void injectFaults() throws InterruptedException {
    Random random = new Random(run.seed());
    List<FaultKind> kinds = new ArrayList<>(List.of(FaultKind.values()));
    if (!backend.canDeleteLockKey()) {
      kinds.remove(FaultKind.LOCK_KEY_DELETED);
    }
    List<FaultKind> firstRound = new ArrayList<>(kinds);
    Collections.shuffle(firstRound, random);
    faultsStartedNanos = System.nanoTime();
    long end = faultsStartedNanos + run.duration().toNanos();
    while ((System.nanoTime() < end || !firstRound.isEmpty()) && stopped.getCount() > 0) {
      pause(Duration.ofMillis(500 + random.nextInt(1500)));
      int victim = random.nextInt(clients.size());
      Coordinator client = clients.get(victim);
      FaultKind kind = firstRound.isEmpty() ? kinds.get(random.nextInt(kinds.size())) : firstRound.remove(0);
      switch (kind) {
        case SHORT_CUT -> {
          Duration length = leaseTimeout.dividedBy(4);
          fault("link cut shorter than the lease timeout", "cut client-" + victim + " for " + length.toMillis() + " ms");
          backend.cutLink(client);
          pause(length);
          backend.restoreLink(client);
        }
        case LONG_CUT -> {
          Duration length = leaseTimeout.multipliedBy(2);
          fault("link cut past the lease timeout", "cut client-" + victim + " for " + length.toMillis() + " ms");
          backend.cutLink(client);
          pause(length);
          backend.restoreLink(client);
        }
        case SERVER_RESTART -> {
          fault("server restart", "restart the server");
          backend.restartServer();
        }
        case LOST_REPLY -> {
          // Every byte waits `latency` each way; cut at 1.5 latencies, the requests sent in the first
          // half latency have reached the server and been applied, and their replies are dropped
          // with the delay line: the client hears nothing of what it did.
          Duration latency = leaseTimeout.dividedBy(10);
          Duration length = leaseTimeout.dividedBy(4);
          fault("reply lost after the server applied the request", "delay client-" + victim + "'s link by "
              + latency.toMillis() + " ms, cut it with replies in flight after " + latency.multipliedBy(3).dividedBy(2)
              .toMillis() + " ms, for " + length.toMillis() + " ms");
          backend.delayLink(client, latency);
          pause(latency.multipliedBy(3).dividedBy(2));
          backend.cutLink(client);
          pause(length);
          backend.restoreLink(client);
        }
        case LOCK_KEY_DELETED -> {
          int inside = mutexWork.inside.get();
          boolean deleted;
          mutexWork.deletions.incrementAndGet();
          try {
            deleted = backend.deleteLockKey(MUTEX);
          } finally {
            synchronized (mutexWork) {
              mutexWork.openExcusable.forEach(MutualExclusionChecker.Section::lost);
              mutexWork.deletions.incrementAndGet();
            }
          }
          fault("holder's lock key deleted under it", "delete the key of " + MUTEX + " ("
              + (deleted ? "there" : "not there") + ", " + inside + " section(s) open, told of a loss or not)");
        }
      }
      run.log().add("healed");
    }
  }

  private void fault(String kind, String what) {
    faults.merge(kind, 1, Integer::sum);
    schedule.add(String.format(Locale.ROOT, "+%.3f s: %s", (System.nanoTime() - faultsStartedNanos) / 1e9, what));
    run.log().add(what);
  }

  /**
   * One way into a lock workload: whether it enters a shared section, and how it asks. A worker
   * picks one of its doors at random each time: the read-write lock's are a write lock and two
   * read locks (one acquisition in three writes).
   */
  private record Door(boolean shared, Acquirer acquirer) {}

  @FunctionalInterface
  private interface Acquirer {
    Optional<Lease> tryAcquire(Duration timeout);
  }

  private static List<Door> doors(Coordinator client, Feature feature) {
    return switch (feature) {
      case MUTEX -> {
        Mutex mutex = client.mutex(MUTEX);
        yield List.of(new Door(false, mutex::tryAcquire));
      }
      case READ_WRITE_LOCK -> {
        ReadWriteLock lock = client.readWriteLock(READ_WRITE);
        Mutex write = lock.writeLock();
        Mutex read = lock.readLock();
        yield List.of(new Door(false, write::tryAcquire), new Door(true, read::tryAcquire),
            new Door(true, read::tryAcquire));
      }
      case SEMAPHORE -> {
        Semaphore semaphore = client.semaphore(SEMAPHORE, PERMITS);
        yield List.of(new Door(false, semaphore::tryAcquire));
      }
      default -> throw new IllegalArgumentException("no lock workload for " + feature);
    };
  }

  /** A lock workload's checker, fence and figures. */
  private final class LockWorkload {
    final String name;
    final String rule;
    final MutualExclusionChecker checker;
    final FencedResource<long[]> resource;
    final AtomicLong sharedSections = new AtomicLong();
    final AtomicLong lossesTold = new AtomicLong();
    final AtomicLong staleRefused = new AtomicLong();
    final AtomicLong staleAccepted = new AtomicLong();
    final AtomicLong timeouts = new AtomicLong();
    final AtomicLong errors = new AtomicLong();
    final AtomicLong hung = new AtomicLong();
    /** Holders inside a section right now, for the timeline of a key deletion. */
    final AtomicInteger inside = new AtomicInteger();
    /**
     * The same sections, where those whose lock key was deleted under them end at the deletion
     * (and those whose acquisition ran across one end at once): what is left over is not
     * explained by a deletion. Guarded by this workload for entries and deletions.
     */
    final MutualExclusionChecker excusingDeletions;
    final Set<MutualExclusionChecker.Section> openExcusable = ConcurrentHashMap.newKeySet();
    /** Bumped before a deletion and again once its holders are excused. */
    final AtomicLong deletions = new AtomicLong();

    LockWorkload(String name, String rule, MutualExclusionChecker checker, boolean fenced) {
      this.name = name;
      this.rule = rule;
      this.checker = checker;
      this.excusingDeletions = fenced ? MutualExclusionChecker.exclusive() : MutualExclusionChecker.withCapacity(PERMITS);
      this.resource = fenced ? new FencedResource<>("the " + name + "'s resource", new long[1]) : null;
    }

    ChaosReport.LockFigures figures() {
      long overlaps = checker.violations().size();
      long unexplained = excusingDeletions.violations().size();
      return new ChaosReport.LockFigures(name, rule, checker.sectionCount(), sharedSections.get(),
          overlaps, Math.max(0, overlaps - unexplained), lossesTold.get(), resource != null, staleRefused.get(), staleAccepted.get(),
          timeouts.get(), errors.get(), hung.get());
    }

    void write(long token) {
      try {
        resource.write(token, highest -> {
          if (token < highest[0]) {
            staleAccepted.incrementAndGet();
          }
          highest[0] = Math.max(highest[0], token);
        });
      } catch (StaleTokenException e) {
        staleRefused.incrementAndGet();
      }
    }
  }

  private void lockWorker(LockWorkload work, List<Door> doors, String who, Random random) {
    while (stopped.getCount() > 0) {
      Door door = doors.get(random.nextInt(doors.size()));
      long deletionsBefore = work.deletions.get();
      long start = System.nanoTime();
      Optional<Lease> granted;
      try {
        granted = door.acquirer().tryAcquire(acquireTimeout);
      } catch (ClientClosedException e) {
        return;
      } catch (RuntimeException e) {
        work.errors.incrementAndGet();
        checkNotHung(work, start, who, e.toString());
        pauseQuietly(Duration.ofMillis(50));
        continue;
      }
      checkNotHung(work, start, who, granted.isPresent() ? "granted" : "timed out");
      if (granted.isEmpty()) {
        work.timeouts.incrementAndGet();
        continue;
      }
      hold(work, door.shared(), granted.get(), who, random, deletionsBefore);
    }
  }

  private void hold(LockWorkload work, boolean shared, Lease lease, String who, Random random, long deletionsBefore) {
    long token = lease.fencingToken();
    MutualExclusionChecker.Section section;
    MutualExclusionChecker.Section excusable;
    synchronized (work) {
      section = shared ? work.checker.enterShared(who, token) : work.checker.enter(who, token);
      excusable = shared ? work.excusingDeletions.enterShared(who, token) : work.excusingDeletions.enter(who, token);
      work.openExcusable.add(excusable);
      if (work.deletions.get() != deletionsBefore) {
        excusable.lost(); // the grant may predate a deletion of the lock's key
      }
    }
    if (shared) {
      work.sharedSections.incrementAndGet();
    }
    AtomicBoolean told = new AtomicBoolean();
    Runnable notice = () -> {
      if (told.compareAndSet(false, true)) {
        work.lossesTold.incrementAndGet();
        run.log().add(who + " told its " + work.name + " lease (token " + token + ") is in doubt");
      }
      section.lost();
      excusable.lost();
    };
    lease.addListener((l, state) -> {
      if (state == LeaseState.SUSPECT || state == LeaseState.LOST) {
        notice.run();
      }
    });
    LeaseState now = lease.state();
    if (now == LeaseState.SUSPECT || now == LeaseState.LOST) {
      notice.run();
    }
    boolean writes = work.resource != null && !shared;
    work.inside.incrementAndGet();
    try {
      if (writes) {
        work.write(token);
      }
      // Mostly brief; one hold in twenty stalls past the lease timeout, as a paused holder does.
      Duration stall = random.nextInt(20) == 0
          ? leaseTimeout.plusMillis(random.nextInt((int) Math.max(1, leaseTimeout.toMillis())))
          : Duration.ofMillis(random.nextInt(10));
      pauseQuietly(stall);
      if (writes) {
        work.write(token); // decided before the stall, written whatever the lease says now
      }
    } finally {
      section.exit();
      excusable.exit();
      work.openExcusable.remove(excusable);
      work.inside.decrementAndGet();
      lease.close();
    }
  }

  private void checkNotHung(LockWorkload work, long startNanos, String who, String outcome) {
    Duration took = Duration.ofNanos(System.nanoTime() - startNanos);
    if (took.compareTo(acquireTimeout.plus(HANG_SLACK)) > 0) {
      work.hung.incrementAndGet();
      run.log().add(who + ": a " + work.name + " acquisition with a " + acquireTimeout.toMillis()
          + " ms timeout took " + took.toMillis() + " ms (" + outcome + ")");
    }
  }

  private LeaderLatch joinElection(Coordinator client, String id) {
    LeaderLatch latch = client.leaderLatch(LEADER, id);
    latch.addListener(new LeadershipListener() {
      @Override
      public void leadershipGained(Lease leadership) {
        long token = leadership.fencingToken();
        if (token < highestLeaderToken.get()) {
          leaderTokenRegressions.incrementAndGet();
        }
        highestLeaderToken.accumulate(token);
        leaderTerms.incrementAndGet();
        run.log().add(id + " leads (token " + token + ")");
        MutualExclusionChecker.Section previous = terms.put(id, leaderChecker.enter(id, token));
        if (previous != null) {
          previous.exit();
        }
      }

      @Override
      public void leadershipLost(Lease leadership) {
        run.log().add(id + " no longer leads");
        MutualExclusionChecker.Section term = terms.remove(id);
        if (term != null) {
          term.lost();
          term.exit();
        }
      }
    });
    latch.start();
    return latch;
  }

  /**
   * Writes through the leaders' fence with the leadership's token while the latch reads a valid
   * leadership. Once it no longer does, the old token is kept, and written once more as soon as a
   * newer term has begun, as a deposed leader waking from a pause would act on what it last knew:
   * that late write must be refused once the newer leader has written.
   */
  private void leaderWorker(LeaderLatch latch) {
    long lastToken = Long.MIN_VALUE;
    boolean deposed = false;
    while (stopped.getCount() > 0) {
      Optional<Lease> leadership;
      try {
        leadership = latch.leadership();
      } catch (RuntimeException e) {
        leadership = Optional.empty();
      }
      if (leadership.isPresent() && leadership.get().isValid()) {
        lastToken = leadership.get().fencingToken();
        deposed = false;
        if (writeAsLeader(lastToken)) {
          leaderWrites.incrementAndGet();
        }
      } else if (lastToken != Long.MIN_VALUE) {
        deposed = true;
      }
      if (deposed && highestLeaderToken.get() > lastToken) {
        (writeAsLeader(lastToken) ? deposedAccepted : deposedRefused).incrementAndGet();
        lastToken = Long.MIN_VALUE;
        deposed = false;
      }
      pauseQuietly(LEADER_WRITE_EVERY);
    }
  }

  /** Whether the fence accepted the write. */
  private boolean writeAsLeader(long token) {
    try {
      leaderResource.write(token, highest -> {
        if (token < highest[0]) {
          leaderStaleAccepted.incrementAndGet();
        }
        highest[0] = Math.max(highest[0], token);
      });
      return true;
    } catch (StaleTokenException e) {
      return false;
    }
  }

  private void counterWorker(Counter counter) {
    while (stopped.getCount() > 0) {
      try {
        counter.incrementAndGet();
        increments.incrementAndGet();
      } catch (ClientClosedException e) {
        return;
      } catch (OutcomeUnknownException e) {
        unknownIncrements.incrementAndGet();
      } catch (RuntimeException e) {
        // Refused before it was sent (connection down): counted as unknown all the same, so a
        // backend that applied it anyway is not blamed for a duplicate.
        unknownIncrements.incrementAndGet();
        pauseQuietly(Duration.ofMillis(50));
      }
    }
  }

  private ChaosReport.CounterFigures counterFigures(List<String> problems) {
    long value;
    try {
      value = clients.get(0).counter(COUNTER).get();
    } catch (RuntimeException e) {
      problems.add("the counter could not be read after the faults: " + e);
      return new ChaosReport.CounterFigures(increments.get(), unknownIncrements.get(), -1, true);
    }
    long acknowledged = increments.get();
    long unknown = unknownIncrements.get();
    return new ChaosReport.CounterFigures(acknowledged, unknown, value,
        value < acknowledged || value > acknowledged + unknown);
  }

  /** After the faults, every client must be able to take every lock again (the write lock, for the read-write lock). */
  private List<String> recoveryProblems(boolean readWrite, boolean semaphore) {
    List<String> problems = new ArrayList<>();
    Duration bound = leaseTimeout.multipliedBy(4).plus(HANG_SLACK);
    List<Feature> locks = new ArrayList<>(List.of(Feature.MUTEX));
    if (readWrite) {
      locks.add(Feature.READ_WRITE_LOCK);
    }
    if (semaphore) {
      locks.add(Feature.SEMAPHORE);
    }
    for (int c = 0; c < clients.size(); c++) {
      for (Feature lock : locks) {
        String what = "client-" + c + " " + lock.words();
        try {
          Optional<Lease> again = doors(clients.get(c), lock).get(0).acquirer().tryAcquire(bound);
          if (again.isEmpty()) {
            problems.add(what + ": could not be taken within " + bound.toSeconds() + " s after the faults");
          } else {
            again.get().close();
          }
        } catch (RuntimeException e) {
          problems.add(what + ": failed to be taken after the faults: " + e);
        }
      }
    }
    return problems;
  }

  private void restoreQuietly(Coordinator client) {
    try {
      backend.restoreLink(client);
    } catch (RuntimeException e) {
      run.log().add("restoring a link failed: " + e);
    }
  }

  private void pause(Duration length) throws InterruptedException {
    stopped.await(length.toNanos(), TimeUnit.NANOSECONDS);
  }

  private void pauseQuietly(Duration length) {
    try {
      pause(length);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
