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
import dev.baton.lock.StaleTokenException;
import dev.baton.testkit.ChaosRun;
import dev.baton.testkit.MutualExclusionChecker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;

/**
 * One chaos run of any backend through its {@link ContractBackend}: clients work on a mutex with a
 * fenced resource, a leader latch and a counter (those the backend has) while faults drawn from the
 * run's seed strike (a client's link cut briefly or past the lease timeout, the server restarted,
 * and in the workload itself holders that stall past the lease timeout); the history is then
 * checked and summed up in a {@link ChaosReport}.
 *
 * <p>Every wait is bounded: acquisitions time out, a stall waits on the run's stop, and the end of
 * the run waits a bounded time for every worker, counting one that does not end as a hang.
 */
public final class CoordinatorChaos {
  private static final String MUTEX = "/chaos/mutex";
  private static final String LEADER = "/chaos/leader";
  private static final String COUNTER = "/chaos/counter";
  private static final int CLIENTS = 3;
  private static final int MUTEX_THREADS_PER_CLIENT = 2;
  /** How much later than its timeout an acquisition may return before it counts as hung. */
  private static final Duration HANG_SLACK = Duration.ofSeconds(5);

  private final ContractBackend backend;
  private final ChaosRun run;
  private final Duration leaseTimeout;
  private final Duration acquireTimeout;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final List<Coordinator> clients = new ArrayList<>();
  private final Map<String, Integer> faults = new TreeMap<>();

  private final MutualExclusionChecker mutexChecker = MutualExclusionChecker.exclusive();
  private final FencedResource<long[]> resource = new FencedResource<>("the chaos resource", new long[1]);
  private final AtomicLong lossesTold = new AtomicLong();
  private final AtomicLong staleRefused = new AtomicLong();
  private final AtomicLong staleAccepted = new AtomicLong();
  private final AtomicLong timeouts = new AtomicLong();
  private final AtomicLong errors = new AtomicLong();
  private final AtomicLong hung = new AtomicLong();

  private final MutualExclusionChecker leaderChecker = MutualExclusionChecker.withCapacity(1);
  private final Map<String, MutualExclusionChecker.Section> terms = new ConcurrentHashMap<>();
  private final LongAccumulator highestLeaderToken = new LongAccumulator(Math::max, Long.MIN_VALUE);
  private final AtomicLong leaderTerms = new AtomicLong();
  private final AtomicLong leaderTokenRegressions = new AtomicLong();

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
      for (int c = 0; c < CLIENTS; c++) {
        Coordinator client = backend.newClient();
        clients.add(client);
        String name = "client-" + c;
        Mutex mutex = client.mutex(MUTEX);
        for (int t = 0; t < MUTEX_THREADS_PER_CLIENT; t++) {
          Random random = new Random(run.seed() * 31 + c * 7L + t);
          String who = name + "/" + t;
          workers.add(threads.submit(() -> mutexWorker(mutex, who, random)));
        }
        if (leader) {
          latches.add(joinElection(client, name));
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
    problems.addAll(recoveryProblems());
    latches.forEach(LeaderLatch::close);

    ChaosReport.MutexFigures mutexFigures = new ChaosReport.MutexFigures(mutexChecker.sectionCount(),
        mutexChecker.violations().size(), lossesTold.get(), staleRefused.get(), staleAccepted.get(), timeouts.get(),
        errors.get(), hung.get());
    ChaosReport.LeadershipFigures leaderFigures = leader
        ? new ChaosReport.LeadershipFigures(leaderTerms.get(), leaderChecker.violations().size(),
            leaderTokenRegressions.get())
        : null;
    ChaosReport.CounterFigures counterFigures = counter ? counterFigures(problems) : null;
    List<String> all = new ArrayList<>(ChaosReport.safetyProblems(mutexFigures, leaderFigures, counterFigures));
    all.addAll(problems);
    mutexChecker.violations().stream().limit(5).forEach(v -> all.add("mutex: " + v));
    if (leader) {
      leaderChecker.violations().stream().limit(5).forEach(v -> all.add("leader: " + v));
    }
    return new ChaosReport(backend.name(), run.seed(), run.duration(), Map.copyOf(faults), mutexFigures,
        leaderFigures, counterFigures, List.copyOf(all));
  }

  /** Faults from the seed, one after another, until the run's duration has passed. */
  private void injectFaults() throws InterruptedException {
    Random random = new Random(run.seed());
    long end = System.nanoTime() + run.duration().toNanos();
    while (System.nanoTime() < end) {
      pause(Duration.ofMillis(500 + random.nextInt(1500)));
      int victim = random.nextInt(clients.size());
      Coordinator client = clients.get(victim);
      switch (random.nextInt(3)) {
        case 0 -> {
          Duration length = leaseTimeout.dividedBy(4);
          fault("link cut shorter than the lease timeout", "cut client-" + victim + " for " + length.toMillis() + " ms");
          backend.cutLink(client);
          pause(length);
          backend.restoreLink(client);
        }
        case 1 -> {
          Duration length = leaseTimeout.multipliedBy(2);
          fault("link cut past the lease timeout", "cut client-" + victim + " for " + length.toMillis() + " ms");
          backend.cutLink(client);
          pause(length);
          backend.restoreLink(client);
        }
        default -> {
          fault("server restart", "restart the server");
          backend.restartServer();
        }
      }
      run.log().add("healed");
    }
  }

  private void fault(String kind, String what) {
    faults.merge(kind, 1, Integer::sum);
    run.log().add(what);
  }

  private void mutexWorker(Mutex mutex, String who, Random random) {
    while (stopped.getCount() > 0) {
      long start = System.nanoTime();
      Optional<Lease> granted;
      try {
        granted = mutex.tryAcquire(acquireTimeout);
      } catch (ClientClosedException e) {
        return;
      } catch (RuntimeException e) {
        errors.incrementAndGet();
        checkNotHung(start, who, e.toString());
        pauseQuietly(Duration.ofMillis(50));
        continue;
      }
      checkNotHung(start, who, granted.isPresent() ? "granted" : "timed out");
      if (granted.isEmpty()) {
        timeouts.incrementAndGet();
        continue;
      }
      hold(granted.get(), who, random);
    }
  }

  private void hold(Lease lease, String who, Random random) {
    long token = lease.fencingToken();
    MutualExclusionChecker.Section section = mutexChecker.enter(who, token);
    AtomicBoolean told = new AtomicBoolean();
    Runnable notice = () -> {
      if (told.compareAndSet(false, true)) {
        lossesTold.incrementAndGet();
        run.log().add(who + " told its lease (token " + token + ") is in doubt");
      }
      section.lost();
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
    try {
      write(token);
      // Mostly brief; one hold in twenty stalls past the lease timeout, as a paused holder does.
      Duration stall = random.nextInt(20) == 0
          ? leaseTimeout.plusMillis(random.nextInt((int) Math.max(1, leaseTimeout.toMillis())))
          : Duration.ofMillis(random.nextInt(10));
      pauseQuietly(stall);
      write(token); // decided before the stall, written whatever the lease says now
    } finally {
      section.exit();
      lease.close();
    }
  }

  private void write(long token) {
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

  private void checkNotHung(long startNanos, String who, String outcome) {
    Duration took = Duration.ofNanos(System.nanoTime() - startNanos);
    if (took.compareTo(acquireTimeout.plus(HANG_SLACK)) > 0) {
      hung.incrementAndGet();
      run.log().add(who + ": an acquisition with a " + acquireTimeout.toMillis() + " ms timeout took "
          + took.toMillis() + " ms (" + outcome + ")");
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

  /** After the faults, every client must be able to take the lock again. */
  private List<String> recoveryProblems() {
    List<String> problems = new ArrayList<>();
    Duration bound = leaseTimeout.multipliedBy(4).plus(HANG_SLACK);
    for (int c = 0; c < clients.size(); c++) {
      try {
        Optional<Lease> again = clients.get(c).mutex(MUTEX).tryAcquire(bound);
        if (again.isEmpty()) {
          problems.add("client-" + c + " could not take the mutex within " + bound.toSeconds() + " s after the faults");
        } else {
          again.get().close();
        }
      } catch (RuntimeException e) {
        problems.add("client-" + c + " failed to take the mutex after the faults: " + e);
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
