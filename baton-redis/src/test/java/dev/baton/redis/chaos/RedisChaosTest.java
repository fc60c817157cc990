package dev.baton.redis.chaos;

import static org.awaitility.Awaitility.await;

import dev.baton.BatonException;
import dev.baton.embedded.EmbeddedRedis;
import dev.baton.lock.AcquireTimeoutException;
import dev.baton.lock.FencedResource;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.Mutex;
import dev.baton.lock.StaleTokenException;
import dev.baton.redis.RedisBaton;
import dev.baton.redis.RedisMutexOptions;
import dev.baton.redis.chaos.RedisFaultSchedule.Fault;
import dev.baton.redis.chaos.RedisFaultSchedule.Kind;
import dev.baton.testkit.ChaosFaults;
import dev.baton.testkit.ChaosRun;
import dev.baton.testkit.FaultProxy;
import dev.baton.testkit.MutualExclusionChecker;
import dev.baton.testkit.MutualExclusionChecker.Section;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The chaos run of the Redis mutex on a standalone redis-server (the shipped one): four
 * {@link RedisBaton} clients, each behind its own {@link FaultProxy}, run workers that take a plain
 * mutex and one with local hand-over (one worker per client sometimes takes both, in a fixed
 * order), blocking and timed, some giving up early, and write through a fence while they hold
 * it. Meanwhile a seeded {@link RedisFaultSchedule} cuts links for less and more than the TTL,
 * silences them past the TTL (a paused holder), delays them, cuts them with replies in flight,
 * restarts redis-server empty, and deletes the plain mutex's lock key or a fencing counter.
 *
 * <p>Checked: no two valid leases of a mutex overlap (a lease stops being valid when its holder
 * is told SUSPECT or LOST, or sees it not HELD; Redis standalone has no failover, so nothing is
 * excused but the holder of a lock key deleted under it), fencing tokens strictly grow in order of
 * grant, no write of a superseded holder is accepted by the fence (and how many were refused),
 * no acquisition outlives its timeout by more than {@link #HANG_SLACK}, every client takes a lock
 * within 30 s of each fault healing, and once every client closed only the fencing counters are
 * left. Runs {@code -Dbaton.chaos.duration} (default 35 s, and until every kind struck once) with
 * the faults of {@code -Dbaton.chaos.seed}; every failure message starts with the seed.
 *
 * <p>The fence: every holder writes through a {@link FencedResource} with its token right after
 * its grant (that write marks every earlier holder superseded, under the fence's own lock), then
 * holds the lock a while (now and then past the TTL) and writes again whatever its lease says, as
 * a write decided before a stall would. That second write must be refused once a later holder has
 * written; one accepted then is a "stale write ACCEPTED" (possible only if a later holder got a
 * token that is not larger). A DEL of the lock key hands the lock to the next client while its
 * holder still believes it holds it (it learns so at its next renewal): that holder's section,
 * and those of acquisitions running across the DEL, end at the DEL in the overlap check and are
 * counted as excused; their writes are still checked by the fence.
 */
class RedisChaosTest {
  private static final long DEFAULT_SEED = 20261126L;
  private static final String REPLAY = "./mvnw -B -ntp -q -pl baton-redis test -Dtest=RedisChaosTest";
  private static final Duration TTL = Duration.ofMillis(1500);
  private static final Duration RENEW = Duration.ofMillis(300);
  private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);
  private static final Duration WAITER_LEASE = Duration.ofSeconds(3);
  /** How far past its timeout an acquisition may return before it counts as hung. */
  private static final Duration HANG_SLACK = Duration.ofSeconds(5);
  private static final Duration RECOVERY_BOUND = Duration.ofSeconds(30);
  private static final int CLIENTS = 4;
  private static final String PLAIN = "chaos-plain";
  private static final String LOCAL = "chaos-local";
  private static final RedisMutexOptions LOCAL_OPTIONS = RedisMutexOptions.defaults().withLocalHandOver(4);

  private EmbeddedRedis redis;
  private RedisClient rawClient;
  private StatefulRedisConnection<String, String> raw;
  private ChaosRun run;
  private final List<Client> clients = new ArrayList<>();
  private final Map<String, Lock> locks = new ConcurrentHashMap<>();
  private final Notes problems = new Notes();
  private final Map<Kind, Integer> injected = new EnumMap<>(Kind.class);
  private final AtomicLong acquired = new AtomicLong();
  private final AtomicLong timedOut = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final AtomicLong toldSuspect = new AtomicLong();
  private final AtomicLong toldLost = new AtomicLong();
  private final AtomicLong seenInvalid = new AtomicLong();
  private final AtomicLong excusedByDel = new AtomicLong();
  private final LongAccumulator slowestRecoveryMillis = new LongAccumulator(Math::max, 0);
  /** What each holder was told, by fencing token, to explain a violation. */
  private final Map<Long, Notes> trails = new ConcurrentHashMap<>();
  private volatile boolean running = true;
  /** Counted down with {@code running = false}: holds end early when the run stops. */
  private final CountDownLatch stopped = new CountDownLatch(1);

  /** Problems found while the run goes on, reported at the end. */
  private static final class Notes extends ConcurrentLinkedQueue<String> {}

  @BeforeEach
  void start() {
    redis = EmbeddedRedis.start();
    rawClient = RedisClient.create(redis.uri());
    raw = rawClient.connect();
    run = ChaosRun.fromProperties(DEFAULT_SEED, "35s", REPLAY);
    locks.put(PLAIN, new Lock(PLAIN));
    locks.put(LOCAL, new Lock(LOCAL));
  }

  @AfterEach
  void stop() {
    running = false;
    stopped.countDown();
    for (Client client : clients) {
      client.closeQuietly();
    }
    if (raw != null) {
      raw.close();
      rawClient.shutdown(0, 1, TimeUnit.SECONDS);
    }
    if (redis != null) {
      redis.close();
    }
  }

  @Test
  void mutexesKeepTheirPromises_underSeededFaults() {
    long seed = run.seed();
    System.out.println("redis chaos run: seed " + seed + ", " + run.duration().toSeconds() + " s of faults");
    RedisFaultSchedule schedule = new RedisFaultSchedule(seed, TTL);
    Random workerSeeds = new Random(seed * 1_000_003L);
    for (int i = 0; i < CLIENTS; i++) {
      clients.add(new Client("c" + i, workerSeeds.nextLong()));
    }
    clients.forEach(Client::startWorkers);
    run.awaitOrFail(RECOVERY_BOUND, "every client takes a lock before the first fault", this::everyClientGranted);

    long end = System.nanoTime() + run.duration().toNanos();
    while (System.nanoTime() < end || !schedule.everyKindDrawn()) {
      Fault fault = schedule.next();
      inject(fault);
      long healed = System.nanoTime();
      clients.forEach(c -> c.grantedSinceHeal.set(false));
      run.awaitOrFail(RECOVERY_BOUND, "every client takes a lock again after " + fault, this::everyClientGranted);
      slowestRecoveryMillis.accumulate(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - healed));
      ChaosFaults.pause(fault.quietAfter());
      failIfProblems("during the run");
    }

    running = false;
    stopped.countDown();
    run.log().add("faults over; stopping the workers");
    run.awaitOrFail(Duration.ofSeconds(30), "every worker ends (no acquisition or release hangs)",
        () -> clients.forEach(Client::assertWorkersDone));
    clients.forEach(Client::closeQuietly);
    run.log().add("every client closed");
    run.awaitOrFail(TTL.plus(WAITER_LEASE).plusSeconds(10), "no key but the fencing counters left once every"
        + " client closed", () -> {
          List<String> left = raw.sync().keys("*").stream().filter(k -> !k.startsWith("baton_lock_token:"))
              .sorted().collect(Collectors.toList());
          if (!left.isEmpty()) {
            throw new AssertionError("keys left: " + left);
          }
        });

    List<String> violations = new ArrayList<>();
    for (Lock lock : locks.values()) {
      lock.checker.violations().forEach(v -> violations.add(lock.name + ": " + v));
      violations.addAll(lock.fenceViolations);
    }
    violations.addAll(problems);
    String summary = summary(violations.size());
    System.out.println(summary);
    if (!violations.isEmpty()) {
      throw run.failure(summary + "\n" + violations.size() + " violation(s):\n  "
          + violations.stream().limit(30).collect(Collectors.joining("\n  "))
          + "\nwhat the holders named there were told:\n  " + trailsOf(violations), null);
    }
  }

  private String trailsOf(List<String> violations) {
    java.util.regex.Matcher tokens = java.util.regex.Pattern.compile("token (\\d+)")
        .matcher(String.join("\n", violations.subList(0, Math.min(30, violations.size()))));
    java.util.SortedSet<Long> named = new java.util.TreeSet<>();
    while (tokens.find()) {
      named.add(Long.parseLong(tokens.group(1)));
    }
    return named.stream().map(t -> "token " + t + ": " + String.join("; ", trails.getOrDefault(t, new Notes())))
        .collect(Collectors.joining("\n  "));
  }

  private void trail(long token, String event) {
    trails.computeIfAbsent(token, t -> new Notes()).add(String.format(Locale.ROOT, "%s at +%.3f ms", event,
        (System.nanoTime() - run.log().originNanos()) / 1e6));
  }

  private void everyClientGranted() {
    List<String> behind = clients.stream().filter(c -> !c.grantedSinceHeal.get()).map(c -> c.name)
        .collect(Collectors.toList());
    if (!behind.isEmpty()) {
      throw new AssertionError("no lock granted yet to " + behind);
    }
  }

  private void failIfProblems(String when) {
    if (!problems.isEmpty()) {
      throw run.failure(problems.size() + " problem(s) " + when + ":\n  "
          + problems.stream().limit(30).collect(Collectors.joining("\n  ")), null);
    }
  }

  // ---- faults ----

  private void inject(Fault fault) {
    injected.merge(fault.kind(), 1, Integer::sum);
    Client client = clients.get(fault.target() % clients.size());
    switch (fault.kind()) {
      case CUT_BRIEFLY, CUT_PAST_TTL -> {
        client.proxy.cut();
        run.log().add("fault " + fault + ": " + client.name + " cut");
        ChaosFaults.pause(fault.length());
        client.proxy.restore();
        run.log().add("fault " + fault + ": " + client.name + " restored");
      }
      case BLACKHOLE_PAST_TTL -> {
        client.proxy.blackhole();
        run.log().add("fault " + fault + ": " + client.name + " silenced");
        ChaosFaults.pause(fault.length());
        client.proxy.restore();
        run.log().add("fault " + fault + ": " + client.name + " restored");
      }
      case DELAY_LINK -> {
        client.proxy.delay(fault.latency());
        run.log().add("fault " + fault + ": " + client.name + " delayed");
        ChaosFaults.pause(fault.length());
        client.proxy.restore();
        run.log().add("fault " + fault + ": " + client.name + " back to normal");
      }
      case LOST_REPLY -> {
        // Every command sent between 2 and 1 latencies before the cut reached the server and was
        // applied, and its reply was still in the proxy's delay line when the cut dropped it.
        client.proxy.delay(fault.latency());
        run.log().add("fault " + fault + ": " + client.name + " delayed");
        ChaosFaults.pause(fault.delayedFirst());
        client.proxy.cut();
        run.log().add("fault " + fault + ": " + client.name + " cut with replies in flight");
        ChaosFaults.pause(fault.length());
        client.proxy.restore();
        run.log().add("fault " + fault + ": " + client.name + " restored");
      }
      case RESTART_REDIS -> {
        redis.restart();
        run.log().add("fault " + fault + ": redis-server restarted empty on port " + redis.port());
      }
      case DEL_LOCK_KEY -> {
        Lock lock = locks.get(PLAIN);
        synchronized (lock) {
          lock.deletions.incrementAndGet();
          long deleted = raw.sync().del(PLAIN);
          int excused = 0;
          for (Section open : lock.open) {
            open.lost();
            excused++;
          }
          excusedByDel.addAndGet(excused);
          run.log().add("fault " + fault + ": DEL " + PLAIN + " -> " + deleted + "; " + excused
              + " open section(s) excused from now on");
        }
      }
      case DEL_FENCING_COUNTER -> {
        String name = fault.target() % 2 == 0 ? PLAIN : LOCAL;
        long deleted = raw.sync().del("baton_lock_token:{" + name + "}");
        run.log().add("fault " + fault + ": DEL baton_lock_token:{" + name + "} -> " + deleted);
      }
    }
  }

  // ---- the locks and their fences ----

  /** One mutex name: its checker, its fence, and the sections open right now. */
  private final class Lock {
    final String name;
    final MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
    final FencedResource<Ledger> fence;
    final Set<Section> open = ConcurrentHashMap.newKeySet();
    final AtomicLong deletions = new AtomicLong();
    final AtomicLong writesAccepted = new AtomicLong();
    final AtomicLong staleRefused = new AtomicLong();
    final Notes fenceViolations = new Notes();
    final AtomicLong sectionIds = new AtomicLong();

    Lock(String name) {
      this.name = name;
      this.fence = new FencedResource<>(name, new Ledger());
    }

    /** The first write of a section: from now on every earlier holder is superseded. */
    void entryWrite(long sectionId, String who, long token) {
      try {
        fence.write(token, ledger -> {
          ledger.latestEntry = sectionId;
          ledger.latestEntryWho = who + " (token " + token + ")";
          writesAccepted.incrementAndGet();
        });
      } catch (StaleTokenException e) {
        fenceViolations.add(name + ": the fence refused the first write of a new holder " + who + " (token "
            + token + "): its token is below one an earlier holder already wrote with: " + e.getMessage());
      }
    }

    /** A later write of a section, decided before a possible stall: must be refused once superseded. */
    void laterWrite(long sectionId, String who, long token) {
      try {
        fence.write(token, ledger -> {
          if (ledger.latestEntry != sectionId) {
            fenceViolations.add(name + ": stale write ACCEPTED: " + who + " (token " + token
                + ") wrote after " + ledger.latestEntryWho + " had entered and written");
          }
          writesAccepted.incrementAndGet();
        });
      } catch (StaleTokenException e) {
        staleRefused.incrementAndGet();
      }
    }
  }

  private static final class Ledger {
    long latestEntry = -1;
    String latestEntryWho = "nobody";
  }

  // ---- clients and workers ----

  private final class Client {
    final String name;
    final FaultProxy proxy;
    final RedisBaton baton;
    final Random seeds;
    final List<CompletableFuture<Void>> workers = new ArrayList<>();
    final AtomicBoolean grantedSinceHeal = new AtomicBoolean();
    volatile boolean closed;

    Client(String name, long seed) {
      this.name = name;
      this.seeds = new Random(seed);
      this.proxy = FaultProxy.start(new InetSocketAddress(redis.host(), redis.port()));
      this.baton = RedisBaton.builder().uri("redis://" + proxy.connectString()).leaseTtl(TTL).renewEvery(RENEW)
          .waiterLease(WAITER_LEASE).commandTimeout(COMMAND_TIMEOUT).connectTimeout(COMMAND_TIMEOUT).build();
    }

    void startWorkers() {
      Mutex plain = baton.mutex(PLAIN);
      Mutex local = baton.mutex(LOCAL, LOCAL_OPTIONS);
      workers.add(startWorker(name + "/w0", seeds.nextLong(), plain, local)); // sometimes both
      workers.add(startWorker(name + "/w1", seeds.nextLong(), local, null));
      workers.add(startWorker(name + "/w2", seeds.nextLong(), local, null));
      workers.add(startWorker(name + "/w3", seeds.nextLong(), plain, null));
    }

    private CompletableFuture<Void> startWorker(String who, long seed, Mutex first, Mutex second) {
      CompletableFuture<Void> done = new CompletableFuture<>();
      Thread thread = new Thread(() -> {
        try {
          new Worker(this, who, new Random(seed), first, second).loop();
          done.complete(null);
        } catch (Throwable t) {
          problems.add(who + " ended with " + t);
          done.completeExceptionally(t);
        }
      }, "redis-chaos-" + who);
      thread.setDaemon(true);
      thread.start();
      return done;
    }

    void assertWorkersDone() {
      List<String> busy = new ArrayList<>();
      for (int i = 0; i < workers.size(); i++) {
        if (!workers.get(i).isDone()) {
          busy.add(name + "/w" + i);
        }
      }
      if (!busy.isEmpty()) {
        throw new AssertionError("workers still running: " + busy);
      }
    }

    void closeQuietly() {
      if (closed) {
        return;
      }
      closed = true;
      try {
        baton.close();
      } catch (RuntimeException e) {
        System.out.println("closing " + name + " failed: " + e);
      }
      proxy.close();
    }
  }

  private final class Worker {
    final Client client;
    final String who;
    final Random random;
    final Mutex first;
    final Mutex second;

    Worker(Client client, String who, Random random, Mutex first, Mutex second) {
      this.client = client;
      this.who = who;
      this.random = random;
      this.first = first;
      this.second = second;
    }

    void loop() throws InterruptedException {
      while (running) {
        Optional<Taken> taken = take(first);
        if (taken.isEmpty()) {
          continue;
        }
        try (Held outer = hold(taken.get())) {
          if (second != null && random.nextInt(4) == 0) {
            Optional<Taken> inner = take(second);
            if (inner.isPresent()) {
              try (Held both = hold(inner.get())) {
                work(both);
              }
            }
          }
          work(outer);
        }
      }
    }

    /** One acquisition, blocking and timed, timed, giving up early, or asynchronous and timed. */
    private Optional<Taken> take(Mutex mutex) throws InterruptedException {
      Lock lock = locks.get(mutex.path());
      int how = random.nextInt(4);
      Duration timeout = how == 2
          ? Duration.ofMillis(10 + random.nextInt(150)) // gives up early
          : Duration.ofMillis(1_000 + random.nextInt(3_000));
      long deletionsBefore = lock.deletions.get();
      long started = System.nanoTime();
      Lease lease = null;
      try {
        lease = switch (how) {
          case 0 -> mutex.acquire(timeout);
          case 3 -> mutex.acquireAsync(timeout).get();
          default -> mutex.tryAcquire(timeout).orElse(null);
        };
        if (lease == null) {
          timedOut.incrementAndGet();
        }
      } catch (AcquireTimeoutException e) {
        timedOut.incrementAndGet();
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof AcquireTimeoutException) {
          timedOut.incrementAndGet();
        } else if (cause instanceof BatonException) {
          failed.incrementAndGet();
        } else {
          problems.add(who + ": acquireAsync failed with a non-Baton exception: " + cause);
        }
      } catch (BatonException e) {
        failed.incrementAndGet();
      } catch (RuntimeException e) {
        problems.add(who + ": acquisition failed with a non-Baton exception: " + e);
      }
      long tookNanos = System.nanoTime() - started;
      if (tookNanos > timeout.plus(HANG_SLACK).toNanos()) {
        problems.add(who + ": acquisition of " + mutex.path() + " with timeout " + timeout.toMillis() + " ms took "
            + TimeUnit.NANOSECONDS.toMillis(tookNanos) + " ms");
      }
      return lease == null ? Optional.empty() : Optional.of(new Taken(lock, lease, deletionsBefore));
    }

    private Held hold(Taken taken) {
      Lock lock = taken.lock();
      Lease lease = taken.lease();
      Section section;
      long sectionId = lock.sectionIds.incrementAndGet();
      synchronized (lock) {
        section = lock.checker.enter(who, lease.fencingToken());
        lock.open.add(section);
        if (lock.deletions.get() != taken.deletionsBefore()) {
          // The lock key was deleted while this acquisition ran: the grant may predate the DEL.
          section.lost();
          excusedByDel.incrementAndGet();
        }
      }
      trail(lease.fencingToken(), who + " granted (valid until " + lease.validUntil() + ")");
      lease.addListener((l, state) -> {
        trail(lease.fencingToken(), "told " + state + " (valid until " + l.validUntil() + ")");
        if (state == LeaseState.SUSPECT || state == LeaseState.LOST) {
          section.lost();
          (state == LeaseState.SUSPECT ? toldSuspect : toldLost).incrementAndGet();
        }
      });
      if (lease.state() != LeaseState.HELD) {
        section.lost(); // it changed before the listener was added
        seenInvalid.incrementAndGet();
      }
      acquired.incrementAndGet();
      client.grantedSinceHeal.set(true);
      lock.entryWrite(sectionId, who, lease.fencingToken());
      return new Held(lock, lease, section, sectionId);
    }

    private void work(Held held) throws InterruptedException {
      // Hold the lock a while (workload, not a wait): mostly briefly, sometimes past the TTL, so
      // a fault can strike a holder mid-section and a later holder can come between.
      long holdMillis = random.nextInt(20) == 0 ? 500 + random.nextInt(2_000) : random.nextInt(15);
      if (holdMillis > 0) {
        stopped.await(holdMillis, TimeUnit.MILLISECONDS); // ends early when the run stops
      }
      if (!held.lease.isValid()) {
        held.section.lost();
      }
      // Written whatever the lease says, as a write decided before a stall would be.
      held.lock.laterWrite(held.sectionId, who, held.lease.fencingToken());
    }
  }

  private record Taken(Lock lock, Lease lease, long deletionsBefore) {}

  private final class Held implements AutoCloseable {
    final Lock lock;
    final Lease lease;
    final Section section;
    final long sectionId;

    Held(Lock lock, Lease lease, Section section, long sectionId) {
      this.lock = lock;
      this.lease = lease;
      this.section = section;
      this.sectionId = sectionId;
    }

    @Override
    public void close() {
      section.exit();
      trail(lease.fencingToken(), "exit in state " + lease.state());
      lock.open.remove(section);
      lease.close();
    }
  }

  private String summary(int violations) {
    StringBuilder line = new StringBuilder("redis chaos summary: seed=").append(run.seed()).append(' ')
        .append(summaryOfFaults());
    line.append(" sections={");
    line.append(locks.values().stream().sorted((a, b) -> a.name.compareTo(b.name))
        .map(l -> l.name + "=" + l.checker.sectionCount()).collect(Collectors.joining(",")));
    line.append("} acquired=").append(acquired.get()).append(" timedOutOrGaveUp=").append(timedOut.get())
        .append(" failed=").append(failed.get())
        .append(" told={suspect=").append(toldSuspect.get()).append(",lost=").append(toldLost.get())
        .append(",seenNotHeld=").append(seenInvalid.get()).append('}')
        .append(" excusedByDel=").append(excusedByDel.get())
        .append(" writes={accepted=").append(locks.values().stream().mapToLong(l -> l.writesAccepted.get()).sum())
        .append(",staleRefused=").append(locks.values().stream().mapToLong(l -> l.staleRefused.get()).sum())
        .append(",staleAccepted=").append(locks.values().stream()
            .mapToLong(l -> l.fenceViolations.stream().filter(v -> v.contains("ACCEPTED")).count()).sum())
        .append('}')
        .append(" slowestRecovery=").append(slowestRecoveryMillis.get()).append("ms")
        .append(" violations=").append(violations);
    return line.toString();
  }

  private String summaryOfFaults() {
    int total = injected.values().stream().mapToInt(Integer::intValue).sum();
    return "faults=" + total + " " + injected.entrySet().stream()
        .map(e -> e.getKey().name().toLowerCase(Locale.ROOT) + "=" + e.getValue())
        .collect(Collectors.joining(",", "{", "}"));
  }
}
