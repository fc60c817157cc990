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
import java.util.Queue;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * One chaos run of any backend through its {@link ContractBackend}: clients work on a mutex, a
 * read-write lock and a semaphore (holders of the locks write through a fenced resource), a leader
 * latch whose leaders write through a fence too, and a counter (each workload where the backend's
 * {@link ContractBackend#features()} have it), while faults drawn from the run's seed strike, each
 * where the fixture can deal it ({@link FaultKind}): a client's link cut briefly or past the lease
 * timeout, the server restarted, a link cut just after the server applied a request so its reply
 * is lost, a mutex holder paused past its lease timeout while its client's link is frozen, the
 * locks' records deleted under their holders, the client's connections killed by the server, the
 * store failed over to a replica that lags behind; and in the workload itself holders stall past
 * the lease timeout now and then. The history is then checked and summed up in a {@link
 * ChaosReport}, and once every client has closed, the store is searched for what the recipes left
 * behind ({@link ContractBackend#leftovers}).
 *
 * <p>Some faults may break exclusion by design where the backend declares so ({@link Promise}): a
 * key deletion ({@link Promise#LOSS_TOLD_BEFORE_REGRANT_WHEN_KEY_DELETED}) and a failover ({@link
 * Promise#GRANT_KEPT_ACROSS_FAILOVER}). Each opens a <em>window</em>: the sections it strikes end
 * there in a second checker, so that overlaps the window explains are counted apart from the rest,
 * and each is tied to the window it followed; stale writes must still be refused by the fence.
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
  /** Faults that open a window (key deletions, failovers), in order; guarded by itself. */
  private final List<Window> windows = new ArrayList<>();
  private final AtomicReference<PauseRequest> pauseRequest = new AtomicReference<>();
  private final String label;
  private long faultsStartedNanos;

  private final LockWorkload mutexWork = new LockWorkload(Feature.MUTEX, MUTEX, "mutex",
      "entered before an earlier holder was told of its loss", MutualExclusionChecker.exclusive(), true);
  private final LockWorkload readWriteWork = new LockWorkload(Feature.READ_WRITE_LOCK, READ_WRITE, "read-write lock",
      "entered beside a writer (or, as a writer, beside anyone) not yet told of its loss",
      MutualExclusionChecker.exclusive(), true);
  private final LockWorkload semaphoreWork = new LockWorkload(Feature.SEMAPHORE, SEMAPHORE, "semaphore of " + PERMITS,
      "entered while " + PERMITS + " holders not yet told of their loss held permits",
      MutualExclusionChecker.withCapacity(PERMITS), false);

  private final MutualExclusionChecker leaderChecker = MutualExclusionChecker.withCapacity(1);
  /** The leaders' terms in the checker that ends terms at a failover window (see {@link Excusing}). */
  private final Excusing leaderExcusing = new Excusing(MutualExclusionChecker.withCapacity(1));
  private final Map<String, MutualExclusionChecker.Section[]> terms = new ConcurrentHashMap<>();
  private final LongAccumulator highestLeaderToken = new LongAccumulator(Math::max, Long.MIN_VALUE);
  private final AtomicLong leaderTerms = new AtomicLong();
  private final AtomicLong leaderTokenRegressions = new AtomicLong();
  private final FencedResource<long[]> leaderResource = new FencedResource<>("the leaders' resource", new long[1]);
  private final AtomicLong leaderWrites = new AtomicLong();
  private final AtomicLong deposedRefused = new AtomicLong();
  private final Queue<Long> deposedRefusedAt = new ConcurrentLinkedQueue<>();
  private final AtomicLong deposedAccepted = new AtomicLong();
  private final AtomicLong leaderStaleAccepted = new AtomicLong();

  private final AtomicLong increments = new AtomicLong();
  private final AtomicLong unknownIncrements = new AtomicLong();

  public CoordinatorChaos(ContractBackend backend, ChaosRun run) {
    this(backend, run, backend.name());
  }

  /**
   * As {@link #CoordinatorChaos(ContractBackend, ChaosRun)}, with the report titled {@code label}
   * rather than the backend's name: for a second fixture of the same store ({@code redis-failover}).
   */
  public CoordinatorChaos(ContractBackend backend, ChaosRun run, String label) {
    this.backend = backend;
    this.run = run;
    this.label = label;
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
      // Every recipe object is made before any worker starts: making one may check the store (the SQL
      // counter checks its table), and a client's own busy workers could keep it waiting for a connection.
      List<Runnable> tasks = new ArrayList<>();
      for (int c = 0; c < CLIENTS; c++) {
        Coordinator client = clients.get(c);
        String name = "client-" + c;
        List<Door> mutexDoors = doors(client, Feature.MUTEX);
        List<Door> readWriteDoors = readWrite ? doors(client, Feature.READ_WRITE_LOCK) : List.of();
        List<Door> semaphoreDoors = semaphore ? doors(client, Feature.SEMAPHORE) : List.of();
        for (int t = 0; t < THREADS_PER_LOCK_PER_CLIENT; t++) {
          String who = name + "/" + t;
          Random random = new Random(run.seed() * 31 + c * 7L + t);
          int index = c;
          tasks.add(() -> lockWorker(mutexWork, mutexDoors, index, who, random));
          if (readWrite) {
            Random rw = new Random(run.seed() * 37 + c * 7L + t);
            tasks.add(() -> lockWorker(readWriteWork, readWriteDoors, index, who, rw));
          }
          if (semaphore) {
            Random sem = new Random(run.seed() * 41 + c * 7L + t);
            tasks.add(() -> lockWorker(semaphoreWork, semaphoreDoors, index, who, sem));
          }
        }
        if (counter) {
          Counter shared = client.counter(COUNTER);
          tasks.add(() -> counterWorker(shared));
        }
      }
      if (leader) {
        for (int c = 0; c < CLIENTS; c++) {
          LeaderLatch latch = joinElection(clients.get(c), "client-" + c);
          latches.add(latch);
          tasks.add(() -> leaderWorker(latch));
        }
      }
      for (Runnable task : tasks) {
        workers.add(threads.submit(task));
      }
      injectFaults();
    } finally {
      stopped.countDown();
      run.log().add("faults over; stopping the workers");
      if (backend.canCutLinks()) {
        clients.forEach(this::restoreQuietly);
      }
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
    ChaosReport.CounterFigures counterFigures = counter ? counterFigures(problems) : null;
    ChaosReport.LeftoverFigures leftoverFigures = backend.canCountLeftovers()
        ? leftovers(readWrite, semaphore, leader, problems) : null;

    List<Window> struck;
    synchronized (windows) {
      struck = List.copyOf(windows);
    }
    ChaosReport.LockFigures mutexFigures = mutexWork.figures(struck);
    ChaosReport.LockFigures readWriteFigures = readWrite ? readWriteWork.figures(struck) : null;
    ChaosReport.LockFigures semaphoreFigures = semaphore ? semaphoreWork.figures(struck) : null;
    ChaosReport.LeadershipFigures leaderFigures = null;
    if (leader) {
      List<MutualExclusionChecker.TimedViolation> overlaps = leaderChecker.timedViolations();
      long explained = Math.max(0, overlaps.size() - leaderExcusing.checker.violations().size());
      leaderFigures = new ChaosReport.LeadershipFigures(leaderTerms.get(), overlaps.size(),
          Math.min(explained, attributed(overlaps, struck, Window.FAILOVER)), leaderTokenRegressions.get(),
          leaderWrites.get(), deposedRefused.get(), deposedAccepted.get(), leaderStaleAccepted.get());
    }
    List<ChaosReport.LockFigures> locks = new ArrayList<>();
    locks.add(mutexFigures);
    if (readWriteFigures != null) {
      locks.add(readWriteFigures);
    }
    if (semaphoreFigures != null) {
      locks.add(semaphoreFigures);
    }
    boolean keyDeletionPromised = !backend.notPromised().contains(Promise.LOSS_TOLD_BEFORE_REGRANT_WHEN_KEY_DELETED);
    boolean failoverPromised = !backend.notPromised().contains(Promise.GRANT_KEPT_ACROSS_FAILOVER);
    List<String> all = new ArrayList<>(ChaosReport.safetyProblems(locks, keyDeletionPromised, failoverPromised,
        leaderFigures, counterFigures, leftoverFigures));
    all.addAll(problems);
    for (LockWorkload work : List.of(mutexWork, readWriteWork, semaphoreWork)) {
      // The violations that fail the run, for the failure message; the rest are in the table.
      (keyDeletionPromised && failoverPromised ? work.checker : work.excusing.checker).violations().stream().limit(5)
          .forEach(v -> all.add(work.name + ": " + v));
    }
    if (leader) {
      (failoverPromised ? leaderChecker : leaderExcusing.checker).violations().stream().limit(5)
          .forEach(v -> all.add("leader: " + v));
    }
    return new ChaosReport(label, run.seed(), run.duration(), Map.copyOf(faults), List.copyOf(schedule),
        count(struck, Window.KEY_DELETION), keyDeletionPromised, count(struck, Window.FAILOVER), failoverPromised,
        windowLines(struck, readWrite, semaphore, leader), mutexFigures, readWriteFigures, semaphoreFigures,
        leaderFigures, counterFigures, leftoverFigures, List.copyOf(all));
  }

  /**
   * A fault that may break exclusion by design where the backend declares so: from {@code
   * startNanos} to {@code endNanos} (0 while it lasts).
   */
  private static final class Window {
    static final String KEY_DELETION = "key deletion";
    static final String FAILOVER = "failover";
    final String kind;
    final int number;
    final long startNanos;
    volatile long endNanos;

    Window(String kind, int number, long startNanos) {
      this.kind = kind;
      this.number = number;
      this.startNanos = startNanos;
    }
  }

  private static long count(List<Window> struck, String kind) {
    return struck.stream().filter(w -> w.kind.equals(kind)).count();
  }

  /** The window of {@code kind} that the latest window begun before {@code nanos} is, or null. */
  private static Window windowBefore(long nanos, List<Window> struck) {
    Window latest = null;
    for (Window w : struck) {
      if (w.startNanos <= nanos) {
        latest = w;
      }
    }
    return latest;
  }

  /** How many of {@code overlaps} were entered after a window of {@code kind} (the latest begun before each). */
  private static long attributed(List<MutualExclusionChecker.TimedViolation> overlaps, List<Window> struck, String kind) {
    return overlaps.stream().map(v -> windowBefore(v.enteredAtNanos(), struck))
        .filter(w -> w != null && w.kind.equals(kind)).count();
  }

  /**
   * One line per failover: the overlaps entered after it (before the next window) by workload, and
   * the stale writes the fences refused meanwhile, so the report ties each overlap to its cause.
   */
  private List<String> windowLines(List<Window> struck, boolean readWrite, boolean semaphore, boolean leader) {
    List<LockWorkload> works = new ArrayList<>(List.of(mutexWork));
    if (readWrite) {
      works.add(readWriteWork);
    }
    if (semaphore) {
      works.add(semaphoreWork);
    }
    Map<LockWorkload, List<MutualExclusionChecker.TimedViolation>> overlaps = new java.util.HashMap<>();
    works.forEach(w -> overlaps.put(w, w.checker.timedViolations()));
    List<MutualExclusionChecker.TimedViolation> leaderOverlaps = leader ? leaderChecker.timedViolations() : List.of();
    List<String> lines = new ArrayList<>();
    for (Window w : struck) {
      if (!w.kind.equals(Window.FAILOVER)) {
        continue;
      }
      List<String> parts = new ArrayList<>();
      long refused = 0;
      for (LockWorkload work : works) {
        long n = overlaps.get(work).stream().filter(v -> windowBefore(v.enteredAtNanos(), struck) == w).count();
        if (n > 0) {
          parts.add(work.name + " " + n);
        }
        refused += work.staleRefusedAt.stream().filter(t -> windowBefore(t, struck) == w).count();
      }
      long leaders = leaderOverlaps.stream().filter(v -> windowBefore(v.enteredAtNanos(), struck) == w).count();
      if (leaders > 0) {
        parts.add("leader terms " + leaders);
      }
      refused += deposedRefusedAt.stream().filter(t -> windowBefore(t, struck) == w).count();
      lines.add(String.format(Locale.ROOT, "failover #%d at +%.3f s (%.3f s to serve again): %s; %d stale write(s)"
          + " refused by the fences after it", w.number, (w.startNanos - faultsStartedNanos) / 1e9,
          ((w.endNanos == 0 ? System.nanoTime() : w.endNanos) - w.startNanos) / 1e9,
          parts.isEmpty() ? "no overlap" : "overlaps entered after it: " + String.join(", ", parts), refused));
    }
    return lines;
  }

  /**
   * The kinds of fault a run draws from, each where the fixture can deal it: the link faults where
   * it can cut links ({@link ContractBackend#canCutLinks()}), and so on.
   */
  private enum FaultKind {
    SHORT_CUT, LONG_CUT, SERVER_RESTART, LOST_REPLY, RECORD_DELETED, HOLDER_PAUSED, CONNECTIONS_KILLED, FAILOVER;

    boolean dealtBy(ContractBackend backend) {
      return switch (this) {
        case SHORT_CUT, LONG_CUT, LOST_REPLY, HOLDER_PAUSED -> backend.canCutLinks();
        case SERVER_RESTART -> backend.canRestartServer();
        case RECORD_DELETED -> Stream.of(Feature.MUTEX, Feature.READ_WRITE_LOCK, Feature.SEMAPHORE)
            .anyMatch(f -> backend.features().contains(f) && backend.canDeleteRecord(f));
        case CONNECTIONS_KILLED -> backend.canKillConnections();
        case FAILOVER -> backend.canFailOver();
      };
    }
  }

  /**
   * A pause for the next mutex holder to take, so that a fault strikes a holder inside its section
   * (holds are mostly a few milliseconds): it tells which client it holds through ({@code taken}),
   * then stays inside, writing nothing, until {@code resumed}, and then writes with the token it
   * had, as a process that a pause caught between deciding and writing does.
   */
  private record PauseRequest(CompletableFuture<Integer> taken, CountDownLatch resumed) {}

  /**
   * Faults from the seed, one after another, until the run's duration has passed and every kind
   * has struck once: the first faults are every kind once in an order drawn from the seed, so
   * even the build's short run meets each kind; then kinds at random.
   */
  private void injectFaults() throws InterruptedException {
    Random random = new Random(run.seed());
    List<FaultKind> kinds = new ArrayList<>();
    for (FaultKind kind : FaultKind.values()) {
      if (kind.dealtBy(backend)) {
        kinds.add(kind);
      }
    }
    if (kinds.isEmpty()) {
      throw new IllegalStateException(backend + " can deal none of the chaos run's faults");
    }
    List<FaultKind> firstRound = new ArrayList<>(kinds);
    Collections.shuffle(firstRound, random);
    faultsStartedNanos = System.nanoTime();
    long end = faultsStartedNanos + run.duration().toNanos();
    while ((System.nanoTime() < end || !firstRound.isEmpty()) && stopped.getCount() > 0) {
      // The first round comes at half the gap: where it outlasts the run's duration (the build's 10 s
      // run, on most fixtures) its gaps are what the run costs, and a quarter second lets workers back in.
      pause(Duration.ofMillis(firstRound.isEmpty() ? 500 + random.nextInt(1500) : 250 + random.nextInt(750)));
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
        case RECORD_DELETED -> deleteRecords();
        case HOLDER_PAUSED -> pauseHolder(random);
        case CONNECTIONS_KILLED -> {
          int killed = backend.killConnections(client);
          fault("connections killed by the server", "have the server end client-" + victim + "'s connections ("
              + killed + ")");
        }
        case FAILOVER -> {
          // Writes acknowledged from the hold-back on reach the primary only: the replica promoted next
          // lacks them. The next mutex holder (granted then, so lost in the failover) is kept inside
          // until half a lease timeout after it, then writes with its token, which the fence must
          // refuse if a holder granted by the new primary has written.
          Duration behind = Duration.ofMillis(100 + random.nextInt(400));
          List<Excusing> struck = List.of(mutexWork.excusing, readWriteWork.excusing, semaphoreWork.excusing,
              leaderExcusing);
          Window window = openWindow(Window.FAILOVER, struck);
          PauseRequest request = new PauseRequest(new CompletableFuture<>(), new CountDownLatch(1));
          try {
            backend.holdBackReplication();
            Integer holder = nextMutexHolder(request);
            fault("failover to a lagging replica", "hold back replication, "
                + (holder == null ? "no mutex grant meanwhile" : "client-" + holder + " granted the mutex meanwhile")
                + ", " + behind.toMillis() + " ms more, then kill the primary and promote its replica (failover #"
                + window.number + ")");
            pause(behind);
            backend.failOver();
          } finally {
            closeWindow(window, struck);
          }
          try {
            pause(leaseTimeout.dividedBy(2));
          } finally {
            request.resumed().countDown();
          }
        }
      }
      run.log().add("healed");
    }
  }

  /**
   * Deletes the record of every lock whose record the fixture can delete, one after another, each in
   * a window of its own. The mutex's holder is one kept inside while its record goes and for half a
   * lease timeout after, so that a waiter may be granted meanwhile and the holder's renewal may find
   * the record gone; the read-write lock's and the semaphore's are whoever holds them then (the
   * workers hold briefly, and mostly one of them does).
   */
  private void deleteRecords() throws InterruptedException {
    List<LockWorkload> struck = new ArrayList<>();
    for (LockWorkload work : List.of(mutexWork, readWriteWork, semaphoreWork)) {
      if (backend.features().contains(work.feature) && backend.canDeleteRecord(work.feature)) {
        struck.add(work);
      }
    }
    PauseRequest request = new PauseRequest(new CompletableFuture<>(), new CountDownLatch(1));
    try {
      Integer holder = struck.contains(mutexWork) ? nextMutexHolder(request) : null;
      List<String> parts = new ArrayList<>();
      for (LockWorkload work : struck) {
        int inside = work.inside.get();
        boolean deleted;
        Window window = openWindow(Window.KEY_DELETION, List.of(work.excusing));
        try {
          deleted = backend.deleteRecord(work.feature, work.path);
        } finally {
          closeWindow(window, List.of(work.excusing));
        }
        work.recordDeletions.incrementAndGet();
        parts.add(work.path + " (" + (deleted ? "there" : "not there") + ", " + inside + " section(s) open)");
      }
      fault("holders' records deleted under them", "delete the " + backend.name() + " records of "
          + String.join(", ", parts) + "; " + (!struck.contains(mutexWork) ? "no mutex holder kept inside"
          : holder == null ? "no mutex holder came to be kept inside" : "client-" + holder
          + "'s mutex holder kept inside for " + leaseTimeout.dividedBy(2).toMillis()
          + " ms more, then writing with its old token"));
      pause(leaseTimeout.dividedBy(2));
    } finally {
      request.resumed().countDown();
    }
  }

  /**
   * Closes every client (their links restored) and waits, a bounded time, for the store to hold
   * nothing of the recipes' grants: a closing client releases what it holds (on ZooKeeper its
   * session's nodes go with it), and what it could not reach expires within the lease timeout.
   */
  private ChaosReport.LeftoverFigures leftovers(boolean readWrite, boolean semaphore, boolean leader,
      List<String> problems) {
    for (int c = 0; c < clients.size(); c++) {
      try {
        clients.get(c).close();
      } catch (RuntimeException e) {
        problems.add("client-" + c + " failed to close: " + e);
      }
    }
    Map<Feature, String> recipes = new java.util.EnumMap<>(Feature.class);
    recipes.put(Feature.MUTEX, MUTEX);
    if (readWrite) {
      recipes.put(Feature.READ_WRITE_LOCK, READ_WRITE);
    }
    if (semaphore) {
      recipes.put(Feature.SEMAPHORE, SEMAPHORE);
    }
    if (leader) {
      recipes.put(Feature.LEADER_LATCH, LEADER);
    }
    Duration bound = leaseTimeout.plus(HANG_SLACK);
    List<String> atClose;
    try {
      atClose = backend.leftovers(recipes);
    } catch (RuntimeException e) {
      problems.add("could not look for leftovers in the store: " + e);
      return null;
    }
    AtomicReference<List<String>> left = new AtomicReference<>(atClose);
    if (!atClose.isEmpty()) {
      run.log().add("left in the store right after every client closed: " + String.join(", ", atClose));
      try {
        Awaitility.await("the recipes' grants gone from the store").atMost(bound)
            .pollInterval(Duration.ofMillis(100)).ignoreExceptions().until(() -> {
              left.set(backend.leftovers(recipes));
              return left.get().isEmpty();
            });
      } catch (ConditionTimeoutException e) {
        // left holds what the last look found: reported, and a problem
      }
    }
    List<String> last = left.get();
    return new ChaosReport.LeftoverFigures(atClose.size(), last.size(), bound, last.stream().limit(5).toList());
  }

  /**
   * Has the next mutex holder pause between its two writes for 1.5 to 2 lease timeouts while its
   * client's link is frozen (every byte held back, none dropped, the connections open: what the
   * server sees of a paused process), so its lease expires unrenewed and another client may be
   * granted the lock; then the link thaws and the holder writes with its old token, which the fence
   * must refuse once the newer holder has written.
   */
  private void pauseHolder(Random random) throws InterruptedException {
    Duration length = leaseTimeout.multipliedBy(3).dividedBy(2)
        .plusMillis(random.nextInt((int) Math.max(1, leaseTimeout.toMillis() / 2)));
    PauseRequest request = new PauseRequest(new CompletableFuture<>(), new CountDownLatch(1));
    Integer victim = nextMutexHolder(request);
    if (victim == null) {
      request.resumed().countDown();
      fault("holder paused past its lease timeout", "no mutex holder came to be paused within "
          + acquireTimeout.toMillis() + " ms");
      return;
    }
    fault("holder paused past its lease timeout", "pause client-" + victim + "'s mutex holder and freeze its link for "
        + length.toMillis() + " ms, then let it write with its old token");
    Coordinator client = clients.get(victim);
    try {
      backend.delayLink(client, length);
      pause(length);
      backend.restoreLink(client);
    } finally {
      request.resumed().countDown();
    }
  }

  /**
   * Posts {@code request} for the next mutex holder and returns its client, or null (the request
   * withdrawn) if none entered within the acquisition timeout.
   */
  private Integer nextMutexHolder(PauseRequest request) throws InterruptedException {
    pauseRequest.set(request);
    try {
      return request.taken().get(acquireTimeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      // Withdrawn unless a holder took it just now, which it then tells at once.
      return pauseRequest.compareAndSet(request, null) ? null : request.taken().join();
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException("a pause request is only ever completed with a client", e);
    }
  }

  /** Opens a window of {@code kind}: the sections open now in {@code struck} end here in their excusing checkers. */
  private Window openWindow(String kind, List<Excusing> struck) {
    Window window;
    synchronized (windows) {
      window = new Window(kind, (int) windows.stream().filter(w -> w.kind.equals(kind)).count() + 1, System.nanoTime());
      windows.add(window);
    }
    struck.forEach(Excusing::open);
    return window;
  }

  private void closeWindow(Window window, List<Excusing> struck) {
    struck.forEach(Excusing::close);
    window.endNanos = System.nanoTime();
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

  /**
   * The twin of a checker in which the sections a window strikes end at the window: those open
   * when it opens or closes, and those entered while it is open or whose acquisition ran across
   * it. What this checker still finds is not explained by any window.
   */
  private static final class Excusing {
    final MutualExclusionChecker checker;
    final Set<MutualExclusionChecker.Section> open = ConcurrentHashMap.newKeySet();
    /** Bumped as a window opens and again as it closes: odd while one is open. */
    final AtomicLong marks = new AtomicLong();

    Excusing(MutualExclusionChecker checker) {
      this.checker = checker;
    }

    /**
     * Records an entry whose acquisition began when {@link #marks} read {@code marksBefore}; ended
     * at once if a window struck meanwhile or is open.
     */
    synchronized MutualExclusionChecker.Section enter(String who, long token, boolean shared, long marksBefore) {
      MutualExclusionChecker.Section section = shared ? checker.enterShared(who, token) : checker.enter(who, token);
      open.add(section);
      long now = marks.get();
      if (now != marksBefore || (now & 1) == 1) {
        section.lost(); // the grant may predate the window's fault, or come from it
      }
      return section;
    }

    void exit(MutualExclusionChecker.Section section) {
      section.exit();
      open.remove(section);
    }

    synchronized void open() {
      marks.incrementAndGet();
      open.forEach(MutualExclusionChecker.Section::lost);
    }

    synchronized void close() {
      open.forEach(MutualExclusionChecker.Section::lost);
      marks.incrementAndGet();
    }
  }

  /** A lock workload's checker, fence and figures. */
  private final class LockWorkload {
    final Feature feature;
    /** The lock's name in the store. */
    final String path;
    final String name;
    final String rule;
    final MutualExclusionChecker checker;
    final FencedResource<long[]> resource;
    final AtomicLong sharedSections = new AtomicLong();
    final AtomicLong lossesTold = new AtomicLong();
    final AtomicLong staleRefused = new AtomicLong();
    final Queue<Long> staleRefusedAt = new ConcurrentLinkedQueue<>();
    final AtomicLong staleAccepted = new AtomicLong();
    final AtomicLong timeouts = new AtomicLong();
    final AtomicLong errors = new AtomicLong();
    final AtomicLong hung = new AtomicLong();
    final AtomicLong recordDeletions = new AtomicLong();
    /** Holders inside a section right now, for the timeline of a key deletion. */
    final AtomicInteger inside = new AtomicInteger();
    /** The same sections, ended where a key deletion or a failover struck them. */
    final Excusing excusing;

    LockWorkload(Feature feature, String path, String name, String rule, MutualExclusionChecker checker,
        boolean fenced) {
      this.feature = feature;
      this.path = path;
      this.name = name;
      this.rule = rule;
      this.checker = checker;
      this.excusing = new Excusing(fenced ? MutualExclusionChecker.exclusive() : MutualExclusionChecker.withCapacity(PERMITS));
      this.resource = fenced ? new FencedResource<>("the " + name + "'s resource", new long[1]) : null;
    }

    /**
     * The figures, with the overlaps that windows explain split by the kind of the latest window
     * begun before each (all of them, for the mutex's key deletions, where failovers explain none).
     */
    ChaosReport.LockFigures figures(List<Window> struck) {
      List<MutualExclusionChecker.TimedViolation> overlaps = checker.timedViolations();
      long unexplained = excusing.checker.violations().size();
      long explained = Math.max(0, overlaps.size() - unexplained);
      long afterFailover = Math.min(explained, attributed(overlaps, struck, Window.FAILOVER));
      return new ChaosReport.LockFigures(name, rule, checker.sectionCount(), sharedSections.get(),
          overlaps.size(), recordDeletions.get(), explained - afterFailover, afterFailover, lossesTold.get(), resource != null,
          staleRefused.get(), staleAccepted.get(), timeouts.get(), errors.get(), hung.get());
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
        staleRefusedAt.add(System.nanoTime());
      }
    }
  }

  private void lockWorker(LockWorkload work, List<Door> doors, int client, String who, Random random) {
    while (stopped.getCount() > 0) {
      Door door = doors.get(random.nextInt(doors.size()));
      long marksBefore = work.excusing.marks.get();
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
      hold(work, door.shared(), granted.get(), client, who, random, marksBefore);
    }
  }

  private void hold(LockWorkload work, boolean shared, Lease lease, int client, String who, Random random,
      long marksBefore) {
    long token = lease.fencingToken();
    MutualExclusionChecker.Section section;
    MutualExclusionChecker.Section excusable;
    synchronized (work.excusing) {
      section = shared ? work.checker.enterShared(who, token) : work.checker.enter(who, token);
      excusable = work.excusing.enter(who, token, shared, marksBefore);
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
      PauseRequest paused = work == mutexWork ? pauseRequest.getAndSet(null) : null;
      if (paused != null) {
        paused.taken().complete(client);
        run.log().add(who + " kept inside the mutex (token " + token + ") for a fault");
        awaitQuietly(paused.resumed(), leaseTimeout.multipliedBy(10));
      } else {
        // Mostly brief; one hold in twenty stalls past the lease timeout, its renewals going on.
        Duration stall = random.nextInt(20) == 0
            ? leaseTimeout.plusMillis(random.nextInt((int) Math.max(1, leaseTimeout.toMillis())))
            : Duration.ofMillis(random.nextInt(10));
        pauseQuietly(stall);
      }
      if (writes) {
        work.write(token); // decided before the stall, written whatever the lease says now
      }
    } finally {
      section.exit();
      work.excusing.exit(excusable);
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
        MutualExclusionChecker.Section[] previous;
        synchronized (leaderExcusing) {
          // A term gained while a failover window is open may come from a grant the failover loses.
          previous = terms.put(id, new MutualExclusionChecker.Section[] {leaderChecker.enter(id, token),
              leaderExcusing.enter(id, token, false, leaderExcusing.marks.get())});
        }
        if (previous != null) {
          previous[0].exit();
          leaderExcusing.exit(previous[1]);
        }
      }

      @Override
      public void leadershipLost(Lease leadership) {
        run.log().add(id + " no longer leads");
        MutualExclusionChecker.Section[] term = terms.remove(id);
        if (term != null) {
          for (MutualExclusionChecker.Section s : term) {
            s.lost();
          }
          term[0].exit();
          leaderExcusing.exit(term[1]);
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
        if (writeAsLeader(lastToken)) {
          deposedAccepted.incrementAndGet();
        } else {
          deposedRefused.incrementAndGet();
          deposedRefusedAt.add(System.nanoTime());
        }
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

  private static void awaitQuietly(CountDownLatch latch, Duration bound) {
    try {
      latch.await(bound.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void pauseQuietly(Duration length) {
    try {
      pause(length);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
