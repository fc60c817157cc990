package dev.baton.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.BatonException;
import dev.baton.Codec;
import dev.baton.HelperZk;
import dev.baton.chaos.ChaosWorker.Acquirer;
import dev.baton.chaos.DataWorkers.CounterWorker;
import dev.baton.chaos.DataWorkers.QueueWorker;
import dev.baton.chaos.ChaosWorker.LatchWorker;
import dev.baton.chaos.ChaosWorker.LockWorker;
import dev.baton.lock.Mutex;
import dev.baton.lock.MutexOptions;
import dev.baton.lock.ReadWriteLock;
import dev.baton.lock.Semaphore;
import dev.baton.queue.DistributedQueue;
import dev.baton.queue.QueueItem;
import dev.baton.testkit.ChaosFaults;
import dev.baton.testkit.ChaosLog;
import dev.baton.testkit.ChaosSchedule;
import dev.baton.testkit.ChaosSchedule.Fault;
import dev.baton.testkit.ChaosSchedule.Kind;
import dev.baton.testkit.MutualExclusionChecker;
import dev.baton.testkit.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.zookeeper.data.Stat;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

/**
 * The chaos run (issue 6): a 3-node ensemble, eight clients, each with its own session, taking the
 * mutex (plain, with local hand-over on every other client, and caching its node on one client
 * in four), the read-write lock, a semaphore
 * of three permits and the leader latch in loops (blocking and asynchronous acquisitions, some given
 * up early by a short timeout or a cancel), while a seeded schedule kills and restarts
 * servers (the ensemble's leader first), cuts and silences clients' links past their session
 * timeout (one kind after slowing them down), cuts them briefly, delays them, and kills clients
 * without closing them (a killed client is replaced by a new one, so the run keeps eight). Link
 * faults strike when their victim is inside a long section, server faults when a client talking
 * to the ensemble directly is, and a holder whose link is broken keeps holding until it is told.
 *
 * <p>What it checks, over the whole history:
 * <ul>
 *   <li>No two valid holders at once, by each recipe's rule: one mutex holder, one writer or any
 *       number of readers, at most three semaphore holders, one leader (the testkit's {@link
 *       MutualExclusionChecker}).</li>
 *   <li>Fencing tokens strictly increase from one mutex holder, writer or leader to the next.</li>
 *   <li>A holder whose lease was lost was told (SUSPECT or LOST) before the next holder entered:
 *       its section ends at the notice, so a late notice shows as an overlap; a lease found in
 *       doubt at release that never reached its listener, and a latch leading again on a term
 *       someone else has led after, are reported too. A client whose link is broken past its
 *       session (or for good, when killed) must report SUSPENDED or LOST while the link is down,
 *       and one whose connection is cut must report SUSPENDED, whether or not it holds anything
 *       at the time.</li>
 *   <li>Progress: after each fault heals, every recipe grants again within {@value
 *       #PROGRESS_BOUND_SECONDS} s.</li>
 *   <li>No orphan nodes: once the workers have released everything and closed their latches
 *       (clients still open), and again once every client is closed, no lock, lease or latch node
 *       is left under the recipes' paths.</li>
 *   <li>No caller sees an exception other than a {@link BatonException}; timeouts and connection
 *       errors while faults run are expected, and counted.</li>
 *   <li>Queue ({@link QueueHistory}): every item whose put returned is acknowledged exactly once
 *       or still queued at the end; none acknowledged twice; no acknowledgement succeeds after
 *       another consumer had taken the item; the items of one producer are first taken in the
 *       order they were put, unless a lost claim excuses it (the rule is {@link QueueHistory}'s).</li>
 *   <li>Counter ({@link CounterHistory}): the final value lies between the increments that
 *       returned and those plus the ones of unknown outcome; no value returned twice.</li>
 *   <li>Double barrier ({@link BarrierHistory}, one member per client, {@value #BARRIER_MEMBERS}
 *       to open it): no member passes enter before that many were in at once since the last round
 *       closed; no member passes leave while another is still inside, unless that one's session
 *       ended (it left early, legitimately).</li>
 * </ul>
 *
 * <p>It runs for {@code -Dbaton.chaos.duration} (default {@value #DEFAULT_DURATION}; e.g. {@code 10m}),
 * and at least until every kind of fault has struck once (the schedule's first round, about 40 s),
 * with the faults of {@code -Dbaton.chaos.seed} (default {@value #DEFAULT_SEED}). Every failure
 * message starts with the seed; the run prints its timeline and a summary line (faults by kind,
 * sections per recipe, violations) to standard output, which Surefire keeps in {@code
 * surefire-reports/dev.baton.chaos.ChaosTest-output.txt}.
 */
class ChaosTest {
  private static final long DEFAULT_SEED = 20240607L;
  private static final String DEFAULT_DURATION = "20s";
  private static final int PROGRESS_BOUND_SECONDS = 30;
  private static final Duration PROGRESS_BOUND = Duration.ofSeconds(PROGRESS_BOUND_SECONDS);
  /** Sessions of clients behind proxies: short, so link faults expire them within the run. */
  private static final Duration PROXIED_SESSION = Duration.ofSeconds(2);
  /** Sessions of clients talking to the ensemble directly, which only server faults reach. */
  private static final Duration DIRECT_SESSION = Duration.ofSeconds(4);
  private static final int DIRECT_CLIENTS = 4;
  private static final int PROXIED_CLIENTS = 4;
  private static final int PERMITS = 3;
  /** The double barrier's threshold: a few of the eight members make a round. */
  private static final int BARRIER_MEMBERS = 3;
  private static final int LOCAL_HAND_OVERS = 4;
  /** How long a caching client keeps the mutex's node once nobody in it holds the lock. */
  private static final Duration CACHED_IDLE = Duration.ofMillis(500);
  /**
   * Shares of long sections (100 ms to 1.5 s; the rest are brief): high on clients behind proxies,
   * whose links break, lower on the others, which server faults catch mid-section now and then.
   */
  private static final double LONG_HOLD_SHARE_PROXIED = 0.1;
  private static final double LONG_HOLD_SHARE_DIRECT = 0.05;
  /** How long a link fault waits for its victim to be inside a long section before striking. */
  private static final Duration ARMING_BOUND = Duration.ofSeconds(5);
  private static final int LOG_LINES_IN_FAILURES = 120;

  private long seed;
  private String replay;
  private TestCluster cluster;
  private ChaosLog log;
  /** Restarts the servers this run stops; the run injects its faults itself, checking as they last. */
  private ChaosFaults faults;
  private final List<ChaosRecipe> recipes = new ArrayList<>();
  private ChaosRecipe mutex;
  private ChaosRecipe readWrite;
  private ChaosRecipe semaphore;
  private ChaosRecipe leader;
  private ChaosRecipe queue;
  private ChaosRecipe counter;
  private ChaosRecipe barrier;
  private final QueueHistory queueHistory = new QueueHistory();
  private final CounterHistory counterHistory = new CounterHistory();
  private BarrierHistory barrierHistory;
  private int queueRemaining = -1;
  private long counterFinal = -1;
  private final List<ChaosClient> direct = new ArrayList<>();
  private final List<ChaosClient> proxied = new ArrayList<>();
  private final List<ChaosClient> killed = new ArrayList<>();
  private int clientsMade;
  private final Map<Kind, Integer> injected = new EnumMap<>(Kind.class);
  private int linkFaultsPastSession;
  private int sessionsExpiredByLinkFaults;
  private int clientFaults;
  private int faultsOnHolders;
  private int serverFaults;
  private int serverFaultsOnHolders;
  private long slowestRecoveryNanos;
  private String slowestRecoveryAfter = "none";
  private String orphans = "not checked";
  /** Broken promises of the session layer, found while the faults ran. */
  private final List<String> problems = new ArrayList<>();

  @Test
  void recipesKeepTheirPromisesWhileServersAndLinksFail() throws Exception {
    seed = ChaosSchedule.seedFromProperty(DEFAULT_SEED);
    Duration duration = ChaosSchedule.durationFromProperty(DEFAULT_DURATION);
    replay = "chaos seed " + seed + " (replay: ./mvnw verify -pl baton-core -am -Dtest=ChaosTest"
        + " -Dsurefire.failIfNoSpecifiedTests=false -D" + ChaosSchedule.SEED_PROPERTY + "=" + seed + ")";
    System.out.println("chaos run: seed " + seed + ", " + human(duration) + " of faults");
    ChaosSchedule schedule = new ChaosSchedule(seed, PROXIED_SESSION);
    cluster = TestCluster.builder().ensemble(3).property("maxSessionTimeout", "30000").start();
    try {
      long origin = System.nanoTime();
      mutex = recipe("mutex", "/chaos/mutex", MutualExclusionChecker.exclusive());
      readWrite = recipe("read-write lock", "/chaos/rw", MutualExclusionChecker.exclusive());
      semaphore = recipe("semaphore", "/chaos/semaphore", MutualExclusionChecker.withCapacity(PERMITS),
          "/chaos/semaphore/leases", "/chaos/semaphore/locks");
      leader = recipe("leader latch", "/chaos/leader", MutualExclusionChecker.exclusive());
      // The queue and the counter hold data, not sections: their histories are checked at the end.
      queue = recipe("queue", "/chaos/queue", noSectionRule(), "/chaos/queue/claims");
      counter = recipe("counter", "/chaos/counter", noSectionRule());
      barrier = recipe("double barrier", "/chaos/barrier", noSectionRule());
      log = new ChaosLog(origin);
      faults = new ChaosFaults(cluster, log);
      barrierHistory = new BarrierHistory(BARRIER_MEMBERS, origin);
      for (int i = 0; i < DIRECT_CLIENTS; i++) {
        direct.add(newClient(false));
      }
      for (int i = 0; i < PROXIED_CLIENTS; i++) {
        proxied.add(newClient(true));
      }
      awaitProgress("the start");

      long end = System.nanoTime() + duration.toNanos();
      while (System.nanoTime() - end < 0 || !schedule.everyKindDrawn()) {
        Fault fault = schedule.next();
        inject(fault);
        awaitProgress("fault " + fault);
        ChaosFaults.pause(fault.quietAfter());
      }
      finishAndCheck();
    } catch (AssertionError e) {
      throw e;
    } catch (Exception | Error e) {
      throw failure("the run broke off: " + e, e);
    } finally {
      closeAll();
      cluster.close();
      if (log != null) {
        System.out.println(summary());
      }
    }
  }

  private ChaosRecipe recipe(String name, String path, MutualExclusionChecker checker, String... nodeParents) {
    ChaosRecipe recipe = new ChaosRecipe(name, path,
        nodeParents.length == 0 ? List.of(path) : Arrays.asList(nodeParents), checker);
    recipes.add(recipe);
    return recipe;
  }

  /**
   * A client with one worker per recipe (two sharing a hand-over mutex on every other client, two
   * sharing a caching mutex on every fourth).
   * Workers are seeded from the run's seed, so their choices are the same from run to run.
   */
  private ChaosClient newClient(boolean behindProxies) {
    int index = clientsMade++;
    String name = (behindProxies ? "p" : "d") + index;
    ChaosClient client = ChaosClient.connect(name, cluster, behindProxies,
        behindProxies ? PROXIED_SESSION : DIRECT_SESSION, log);
    Baton baton = client.baton;
    long workerSeed = seed * 1_000_003L + index * 16L;
    double longHolds = behindProxies ? LONG_HOLD_SHARE_PROXIED : LONG_HOLD_SHARE_DIRECT;
    if (index % 2 == 1 || index % 4 == 2) {
      boolean cached = index % 4 == 2;
      MutexOptions options = cached
          ? MutexOptions.defaults().withCaching(CACHED_IDLE)
          : MutexOptions.defaults().withLocalHandOver(LOCAL_HAND_OVERS);
      Mutex shared = baton.mutex(mutex.path, options);
      String mode = cached ? "-mutex-cached" : "-mutex-handover";
      for (int t = 0; t < 2; t++) {
        client.run(new LockWorker(name + mode + t, mutex, workerSeed + t, longHolds, 0,
            Acquirer.of((ignored, timeout) -> shared.acquire(timeout), ignored -> shared.acquireAsync())));
      }
    } else {
      Mutex plain = baton.mutex(mutex.path);
      client.run(new LockWorker(name + "-mutex", mutex, workerSeed, longHolds, 0,
          Acquirer.of((shared, timeout) -> plain.acquire(timeout), shared -> plain.acquireAsync())));
    }
    ReadWriteLock lock = baton.readWriteLock(readWrite.path);
    client.run(new LockWorker(name + "-rw", readWrite, workerSeed + 4, longHolds, 0.7,
        Acquirer.of((shared, timeout) -> (shared ? lock.readLock() : lock.writeLock()).acquire(timeout),
            shared -> (shared ? lock.readLock() : lock.writeLock()).acquireAsync())));
    Semaphore permits = baton.semaphore(semaphore.path, PERMITS);
    client.run(new LockWorker(name + "-semaphore", semaphore, workerSeed + 5, longHolds, 0,
        Acquirer.of((shared, timeout) -> permits.acquire(timeout), shared -> permits.acquireAsync())));
    client.run(new LatchWorker(name + "-leader", leader, workerSeed + 6, longHolds, baton));
    client.run(new QueueWorker(name + "-queue", queue, workerSeed + 7, longHolds, client,
        baton.queue(queue.path, Codec.utf8()), queueHistory));
    client.run(new CounterWorker(name + "-counter", counter, workerSeed + 8, baton.counter(counter.path),
        counterHistory));
    client.run(new BarrierWorker(name + "-barrier", barrier, workerSeed + 9, longHolds, client,
        baton.doubleBarrier(barrier.path, BARRIER_MEMBERS), barrierHistory));
    return client;
  }

  // ---- faults -------------------------------------------------------------------------------

  private void inject(Fault fault) {
    injected.merge(fault.kind(), 1, Integer::sum);
    switch (fault.kind()) {
      case KILL_LEADER -> {
        awaitDirectHolder();
        int server = cluster.stopLeader();
        log.add("fault " + fault + ": stopped server " + server + ", the leader");
        faults.restartAfter(server, fault.length());
      }
      case KILL_FOLLOWER -> {
        awaitDirectHolder();
        int leading = cluster.leader();
        List<Integer> followers = Stream.of(0, 1, 2).filter(s -> s != leading).collect(Collectors.toList());
        int server = followers.get(fault.target() % followers.size());
        cluster.stop(server);
        log.add("fault " + fault + ": stopped server " + server + ", a follower");
        faults.restartAfter(server, fault.length());
      }
      case CUT_PAST_SESSION, BLACKHOLE_PAST_SESSION, SLOW_THEN_SILENT -> {
        ChaosClient victim = pick(fault);
        if (fault.kind() == Kind.SLOW_THEN_SILENT) {
          victim.proxies().delay(fault.latency());
          log.add("fault " + fault + ": " + victim + "'s link slowed");
          ChaosFaults.pause(fault.slowFirst());
        }
        armed(victim);
        long session = victim.baton.sessionId();
        int doubts = victim.doubts();
        victim.stall(true);
        if (fault.kind() == Kind.CUT_PAST_SESSION) {
          victim.proxies().cut();
        } else {
          victim.proxies().blackhole();
        }
        long brokenAt = System.nanoTime();
        log.add("fault " + fault + ": " + victim + "'s link broken");
        // The client must hear of the outage while it lasts: its read timeout is a third of its
        // session timeout shorter than the outage.
        if (!within(fault.length(), () -> victim.doubts() > doubts)) {
          problems.add(victim + " was not told (SUSPENDED or LOST) in the " + fault.length().toMillis()
              + " ms its link was broken, fault " + fault);
        }
        ChaosFaults.pause(fault.length().minusNanos(System.nanoTime() - brokenAt));
        victim.proxies().restore();
        victim.stall(false);
        log.add("fault " + fault + ": " + victim + "'s link restored");
        awaitConnected(victim, fault);
        linkFaultsPastSession++;
        if (victim.baton.sessionId() != session) {
          sessionsExpiredByLinkFaults++;
        }
      }
      case CUT_BRIEFLY -> {
        ChaosClient victim = armed(pick(fault));
        int doubts = victim.doubts();
        victim.stall(true);
        victim.proxies().cut();
        log.add("fault " + fault + ": " + victim + "'s link cut");
        ChaosFaults.pause(fault.length());
        victim.proxies().restore();
        victim.stall(false);
        log.add("fault " + fault + ": " + victim + "'s link restored");
        // A cut closes the client's connection at once: SUSPENDED must follow, even if the link
        // is back before the client has reconnected.
        if (!within(Duration.ofSeconds(5), () -> victim.doubts() > doubts)) {
          problems.add(victim + " was never told (SUSPENDED) that its connection was cut, fault " + fault);
        }
        awaitConnected(victim, fault);
      }
      case DELAY_LINK -> {
        ChaosClient victim = armed(pick(fault));
        victim.proxies().delay(fault.latency());
        log.add("fault " + fault + ": " + victim + "'s link delayed");
        ChaosFaults.pause(fault.length());
        victim.proxies().restore();
        log.add("fault " + fault + ": " + victim + "'s link back to normal");
      }
      case KILL_CLIENT -> {
        ChaosClient victim = armed(pick(fault));
        int doubts = victim.doubts();
        victim.kill();
        killed.add(victim);
        ChaosClient replacement = newClient(true);
        proxied.set(proxied.indexOf(victim), replacement);
        log.add("fault " + fault + ": " + victim + " killed; " + replacement.name + " takes its place");
        // Its threads are stopped, but its ZooKeeper client runs on: its holders, stalled, must
        // still be told before the ensemble ends the session.
        if (!within(PROXIED_SESSION.multipliedBy(2), () -> victim.doubts() > doubts)) {
          problems.add(victim + " was not told (SUSPENDED or LOST) in the " + PROXIED_SESSION.multipliedBy(2).toMillis()
              + " ms after its link went silent for good, fault " + fault);
        }
      }
    }
  }

  /**
   * Waits (at most {@link #ARMING_BOUND}) until a client talking to the ensemble directly is inside
   * a long section, so a server fault catches a holder whose session can survive it: its lease
   * turns SUSPECT and, if it reconnects in time, HELD again.
   */
  private void awaitDirectHolder() {
    serverFaults++;
    try {
      await().atMost(ARMING_BOUND).pollInterval(Duration.ofMillis(2))
          .until(() -> direct.stream().anyMatch(ChaosClient::inLongSection));
      serverFaultsOnHolders++;
    } catch (ConditionTimeoutException e) {
      log.add("no direct client held anything long within " + ARMING_BOUND.toSeconds()
          + " s; stopping the server anyway");
    }
  }

  /** The client a link fault hits. */
  private ChaosClient pick(Fault fault) {
    return proxied.get(fault.target() % proxied.size());
  }

  /**
   * Returns {@code victim} once it is inside a long section (or after {@link #ARMING_BOUND}
   * regardless): a holder cut off mid-section is what tests the loss notice.
   */
  private ChaosClient armed(ChaosClient victim) {
    clientFaults++;
    try {
      await().atMost(ARMING_BOUND).pollInterval(Duration.ofMillis(2)).until(victim::inLongSection);
      faultsOnHolders++;
    } catch (ConditionTimeoutException e) {
      log.add(victim + " held nothing long within " + ARMING_BOUND.toSeconds() + " s; breaking its link anyway");
    }
    return victim;
  }

  /** Waits until a client whose link came back is connected (on its old session or a new one). */
  private void awaitConnected(ChaosClient client, Fault fault) {
    awaitOrFail(client + " connected again after fault " + fault, () -> {
      assertThat(client.baton.connectionState().isConnected()).as(client + " connected").isTrue();
      assertThat(client.baton.sessionId()).as(client + "'s session").isNotZero();
    });
  }

  /** Whether {@code condition} holds within {@code bound}. */
  private static boolean within(Duration bound, java.util.concurrent.Callable<Boolean> condition) {
    try {
      await().atMost(bound).pollInterval(Duration.ofMillis(5)).until(condition);
      return true;
    } catch (ConditionTimeoutException e) {
      return false;
    }
  }

  // ---- checks -------------------------------------------------------------------------------

  /** Every recipe grants a section within the bound, from now on. */
  private void awaitProgress(String after) {
    Map<ChaosRecipe, Long> before = new LinkedHashMap<>();
    recipes.forEach(recipe -> before.put(recipe, recipe.sections()));
    long from = System.nanoTime();
    awaitOrFail("every recipe grants again after " + after, () -> assertThat(recipes.stream()
        .filter(recipe -> recipe.sections() <= before.get(recipe))
        .map(recipe -> recipe.name)).as("recipes without a new section").isEmpty());
    long took = System.nanoTime() - from;
    if (took > slowestRecoveryNanos) {
      slowestRecoveryNanos = took;
      slowestRecoveryAfter = after;
    }
    log.add(String.format(Locale.ROOT, "every recipe granted again within %.0f ms after %s", took / 1e6, after));
  }

  private void finishAndCheck() throws Exception {
    log.add("faults over; stopping the workers");
    List<ChaosClient> all = clients();
    all.forEach(ChaosClient::stopWorkers);
    long deadline = System.nanoTime() + PROGRESS_BOUND.toNanos();
    List<Thread> hung = new ArrayList<>();
    for (ChaosClient client : all) {
      hung.addAll(client.awaitWorkers(deadline));
    }
    if (!hung.isEmpty()) {
      StringBuilder stacks = new StringBuilder();
      for (Thread thread : hung) {
        stacks.append("\n").append(thread.getName()).append(":");
        for (StackTraceElement frame : thread.getStackTrace()) {
          stacks.append("\n    at ").append(frame);
        }
      }
      throw failure(hung.size() + " worker(s) still running " + PROGRESS_BOUND_SECONDS
          + " s after they were told to stop:" + stacks, null);
    }
    log.add("workers stopped");

    StringBuilder broken = new StringBuilder();
    problems.forEach(p -> broken.append("\n").append(p));
    for (ChaosRecipe recipe : recipes) {
      List<String> violations = recipe.checker.violations();
      if (!violations.isEmpty()) {
        broken.append("\n").append(recipe.name).append(": ").append(violations.size())
            .append(" violation(s) of its rule in ").append(recipe.checker.sectionCount() - 1)
            .append(" sections (times in ms since the run's origin, as in the timeline):");
        violations.stream().limit(20).forEach(v -> broken.append("\n  ").append(v));
      }
      recipe.problems.forEach(p -> broken.append("\n").append(recipe.name).append(": ").append(p));
      recipe.unexpected.forEach(u -> broken.append("\n").append(recipe.name).append(", unexpected exception in ")
          .append(u));
    }
    if (broken.length() > 0) {
      throw failure("broken promises:" + broken, null);
    }
    assertThat(injected.getOrDefault(Kind.KILL_LEADER, 0)).as(replay + ": the ensemble's leader was killed")
        .isPositive();
    if (linkFaultsPastSession > 0) {
      assertThat(sessionsExpiredByLinkFaults)
          .as(replay + ": sessions expired by the %d link faults past the session timeout", linkFaultsPastSession)
          .isPositive();
    }

    try (HelperZk raw = HelperZk.connect(cluster.connectString())) {
      awaitNoNodes(raw, "once every worker released its leases and closed its latch, clients still open");
      all.forEach(ChaosClient::close);
      awaitNoNodes(raw, "once every client closed");
    }
    orphans = "0";
    checkData();
  }

  /** A recipe without a rule on sections: its promises are those of its history. */
  private static MutualExclusionChecker noSectionRule() {
    return MutualExclusionChecker.withCapacity(Integer.MAX_VALUE);
  }

  /**
   * The promises of the queue, the counter and the double barrier, checked against what is on the ensemble once every
   * client has closed (so no claim of a dead session hides an item): the items still queued are
   * drained by a fresh client, the counter read.
   */
  private void checkData() {
    List<String> remaining = new ArrayList<>();
    try (Baton reader = Baton.connect(cluster.connectString())) {
      DistributedQueue<String> left = reader.queue(queue.path, Codec.utf8());
      for (Optional<QueueItem<String>> item = left.take(Duration.ofMillis(200)); item.isPresent();
          item = left.take(Duration.ofMillis(200))) {
        remaining.add(item.get().value());
        item.get().ack();
      }
      counterFinal = reader.counter(counter.path).get();
    }
    queueRemaining = remaining.size();
    queue.problems.addAll(queueHistory.violations(remaining));
    counter.problems.addAll(counterHistory.violations(counterFinal));
    barrier.problems.addAll(barrierHistory.violations());
    StringBuilder broken = new StringBuilder();
    for (ChaosRecipe recipe : List.of(queue, counter, barrier)) {
      recipe.problems.stream().limit(20).forEach(p -> broken.append("\n").append(recipe.name).append(": ").append(p));
    }
    if (broken.length() > 0) {
      throw failure("broken promises:" + broken, null);
    }
  }

  private void awaitNoNodes(HelperZk raw, String when) {
    awaitOrFail("no node left under the recipes' paths " + when, () -> {
      List<String> left = new ArrayList<>();
      for (ChaosRecipe recipe : recipes) {
        for (String parent : recipe.nodeParents) {
          for (String child : raw.children(parent)) {
            Stat stat = raw.zk().exists(parent + "/" + child, false);
            if (stat != null) {
              left.add(parent + "/" + child + " of " + sessionOwner(stat.getEphemeralOwner()));
            }
          }
        }
      }
      orphans = Integer.toString(left.size());
      assertThat(left).as("nodes left").isEmpty();
    });
  }

  private String sessionOwner(long session) {
    return clients().stream()
        .filter(client -> client.baton.sessionId() == session)
        .map(client -> client.toString())
        .findFirst()
        .orElse("session 0x" + Long.toHexString(session) + " (no client's current session)");
  }

  private void awaitOrFail(String what, org.awaitility.core.ThrowingRunnable assertion) {
    try {
      await().atMost(PROGRESS_BOUND).pollInterval(Duration.ofMillis(20)).untilAsserted(assertion);
    } catch (ConditionTimeoutException e) {
      throw failure("not within " + PROGRESS_BOUND_SECONDS + " s: " + what + ": " + e.getMessage(), e);
    }
  }

  private AssertionError failure(String message, Throwable cause) {
    String timeline = log == null ? "" : "\ntimeline (last lines):\n" + log.tail(LOG_LINES_IN_FAILURES);
    return new AssertionError(replay + ": " + message + timeline, cause);
  }

  // ---- the end ------------------------------------------------------------------------------

  private List<ChaosClient> clients() {
    List<ChaosClient> all = new ArrayList<>(direct);
    all.addAll(proxied);
    all.addAll(killed);
    return all;
  }

  private void closeAll() {
    for (ChaosClient client : clients()) {
      client.stopWorkers();
      try {
        client.close();
      } catch (RuntimeException e) {
        System.out.println("closing " + client + " failed: " + e);
      }
    }
  }

  private String summary() {
    StringBuilder line = new StringBuilder("chaos summary: seed=").append(seed);
    line.append(" ").append(ChaosFaults.summary(injected));
    long sections = recipes.stream().mapToLong(ChaosRecipe::sections).sum();
    line.append(" sections=").append(sections).append(" {")
        .append("mutex=").append(mutex.sections())
        .append(",rw=").append(readWrite.sections()).append("(writes=").append(readWrite.exclusiveSections.sum())
        .append(",reads=").append(readWrite.sharedSections.sum()).append(")")
        .append(",semaphore=").append(semaphore.sections())
        .append(",leader=").append(leader.sections()).append("}");
    line.append(" queue={puts=").append(queueHistory.confirmedPuts())
        .append(",unknown-puts=").append(queueHistory.unknownPuts())
        .append(",acks=").append(queueHistory.acks())
        .append(",failed-acks=").append(queueHistory.failedAcks())
        .append(",left=").append(queueRemaining)
.append(",out-of-order-excused-by-lost-claims=").append(queueHistory.excusedOutOfOrder.get()).append("}")
        .append(" counter={done=").append(counterHistory.done.sum())
        .append(",unknown=").append(counterHistory.unknown.sum())
        .append(",not-applied=").append(counterHistory.notApplied.sum())
        .append(",final=").append(counterFinal).append("}")
        .append(" barrier={enters=").append(barrierHistory.count(BarrierHistory.Kind.ENTERED))
        .append(",late-enters=").append(barrierHistory.lateEnters.get())
        .append(",failed-enters=").append(barrierHistory.count(BarrierHistory.Kind.ENTER_FAILED))
        .append(",leaves=").append(barrierHistory.count(BarrierHistory.Kind.LEFT))
        .append(",failed-leaves=").append(barrierHistory.count(BarrierHistory.Kind.LEAVE_FAILED))
        .append(",rounds=").append(barrierHistory.rounds())
        .append(",excused-by-lost-sessions=").append(barrierHistory.excusedByLostSessions.get())
        .append(",leaves-overlapping-entries=").append(barrierHistory.ambiguousClosings.get()).append("}");
    long violations = problems.size();
    for (ChaosRecipe recipe : recipes) {
      violations += recipe.checker.violations().size() + recipe.problems.size() + recipe.unexpected.size();
    }
    line.append(" lost-notices=").append(recipes.stream().mapToLong(r -> r.lostNotices.sum()).sum())
        .append(" invalid-at-grant=").append(recipes.stream().mapToLong(r -> r.invalidAtGrant.sum()).sum())
        .append(" leader-regains=").append(leader.regains.sum())
        .append(" timeouts=").append(recipes.stream().mapToLong(r -> r.timeouts.sum()).sum())
        .append(" cancels=").append(recipes.stream().mapToLong(r -> r.cancels.sum()).sum());
    Map<String, Long> failures = new java.util.TreeMap<>();
    recipes.forEach(r -> r.failures().forEach((kind, count) -> failures.merge(kind, count, Long::sum)));
    line.append(" other-errors=").append(failures)
        .append(" client-faults-on-holders=").append(faultsOnHolders).append("/").append(clientFaults)
        .append(" server-faults-on-holders=").append(serverFaultsOnHolders).append("/").append(serverFaults)
        .append(" sessions-expired-by-link-faults=").append(sessionsExpiredByLinkFaults).append("/")
        .append(linkFaultsPastSession)
        .append(String.format(Locale.ROOT, " slowest-recovery=%.1fs", slowestRecoveryNanos / 1e9))
        .append(" clients=").append(clientsMade).append("(killed=").append(killed.size()).append(")")
        .append(" orphans=").append(orphans)
        .append(" violations=").append(violations);
    return "chaos timeline:\n" + log.tail(Integer.MAX_VALUE) + "slowest recovery after " + slowestRecoveryAfter
        + "\n" + line;
  }

  private static String human(Duration duration) {
    long millis = duration.toMillis();
    if (millis % 60_000 == 0) {
      return millis / 60_000 + " min";
    }
    return millis % 1_000 == 0 ? millis / 1_000 + " s" : millis + " ms";
  }
}
