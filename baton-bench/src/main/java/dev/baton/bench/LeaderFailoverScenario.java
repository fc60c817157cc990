package dev.baton.bench;

import dev.baton.Baton;
import dev.baton.bench.lock.Role;
import dev.baton.leader.LeaderLatch;
import dev.baton.leader.LeadershipListener;
import dev.baton.lock.Lease;
import dev.baton.redis.RedisBaton;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * How long leadership takes to pass when the leader leaves (lower is better, so the ratio is the
 * peer / Baton). Three clients, one participant each, on one name; the leader leaves and the time
 * until the next participant is told it leads is taken. The one that left joins again at the
 * back, so two always wait. Baton and its peer alternate window by window on one server. One
 * measurement, a backend each:
 *
 * <ul>
 *   <li>{@code leader-failover}, ZooKeeper: Baton LeaderLatch beside Curator LeaderLatch; leaving is
 *       {@code close()}, each listener added as its library does by default (Baton: the client's
 *       event thread; Curator: ZooKeeper's event thread). Each failover starts once all three nodes
 *       are on the server; the requests the server receives around each failover are counted.
 *   <li>{@code redis-leader-failover}, Redis: Baton LeaderLatch on Redis ({@code
 *       RedisBaton.leaderLatch}, leaving is {@code close()}) beside Redisson, which has no leader
 *       latch: the usual Redisson election is an {@code RLock} (watchdog lease) that the leader
 *       holds, the others blocking in {@code lock()} (here {@code lockInterruptibly()}, the same
 *       wait, so the benchmark can end them); leaving is the leader's unlock, sent from the timing
 *       thread as {@code unlockAsync(leaderThreadId)} so no thread hop is timed on Redisson's side;
 *       leading is {@code lockInterruptibly()} returning in the next participant's thread. The next
 *       failover starts {@value #REDIS_SETTLE_MS} ms after a join on both sides (time for the
 *       newcomer to queue or subscribe).
 * </ul>
 */
final class LeaderFailoverScenario implements Scenario {
  static final String NAME = "leader-failover";
  static final String REDIS_NAME = "redis-leader-failover";
  private static final int PARTICIPANTS = 3;
  private static final int MIN_FAILOVERS = 10;
  private static final int MAX_FAILOVERS = 500;
  private static final long REDIS_SETTLE_MS = 50;
  private static final Duration WAIT = Duration.ofSeconds(30);

  /** One library's election on the backend: the sides differ only here. */
  private interface Election extends AutoCloseable {
    /** A started participant on client {@code client} that reports its gains to {@code gains}. */
    Participant join(int client, String name, String id, BlockingQueue<Long> gains) throws Exception;

    @Override
    void close();
  }

  private interface Participant {
    boolean leads();

    void leave() throws Exception;
  }

  /** Opens one window's clients, one per participant. */
  private interface Opener {
    Election open(BenchContext context) throws Exception;
  }

  private record Side(String id, String label, Role role, Opener opener) {}

  /** What differs between backends, besides the sides. */
  private interface Backend {
    /** A name of its own for one side's window {@code run}. */
    String name(BenchContext context, String scenario, Side side, String run) throws Exception;

    /** Returns once {@code queued} participants are queued (outside the timed part). */
    void awaitQueued(BenchContext context, String name, int queued, Side side) throws Exception;

    /** Whether the requests the server receives around each failover are counted. */
    boolean countsRequests();

    /** The scenario's notes, from the rounds' p99s (Baton's first) and the series. */
    void note(ScenarioResult result, List<Series> series, Spread ratio99, Spread baton99, Spread peer99);
  }

  private final String name;
  private final String description;
  private final List<Side> sides;
  private final Backend backend;

  private LeaderFailoverScenario(String name, String description, List<Side> sides, Backend backend) {
    this.name = name;
    this.description = description;
    this.sides = sides;
    this.backend = backend;
  }

  /** {@code leader-failover}: latches on ZooKeeper, Baton's and Curator's. */
  static LeaderFailoverScenario zooKeeper() {
    return new LeaderFailoverScenario(NAME,
        PARTICIPANTS + " sessions, one latch each; the leader's latch closed -> the next one's listener told "
            + "(p50 over the failovers of a round)",
        List.of(new Side("baton", "Baton LeaderLatch", Role.BATON, c -> new BatonElection<>(PARTICIPANTS,
                i -> Baton.builder().connectString(c.connectString()).sessionTimeout(Duration.ofSeconds(30))
                    .connectionTimeout(Duration.ofSeconds(15)).build(), Baton::leaderLatch, Baton::close)),
            new Side("curator", "Curator LeaderLatch", Role.CURATOR, c -> new CuratorElection(c.connectString()))),
        new ZooKeeperBackend());
  }

  /** {@code redis-leader-failover}: Baton's latch on Redis beside Redisson's RLock election. */
  static LeaderFailoverScenario redis() {
    return new LeaderFailoverScenario(REDIS_NAME,
        "Redis: " + PARTICIPANTS + " clients, one participant each; the leader leaves -> the next one runs as leader"
            + " (p50 over the failovers of a round)",
        List.of(new Side("baton-redis", "Baton LeaderLatch on Redis", Role.BATON, c -> new BatonElection<>(
                PARTICIPANTS, i -> RedisBaton.connect(c.redisUri()), RedisBaton::leaderLatch, RedisBaton::close)),
            new Side("redisson", "Redisson RLock election (lock() held by the leader)", Role.CURATOR,
                c -> new RedissonElection(c.redisUri()))),
        new RedisBackend());
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public ScenarioResult run(BenchContext context) throws Exception {
    BenchOptions options = context.options();
    ScenarioResult result = new ScenarioResult(name, "us", false, description);
    List<Series> series = new ArrayList<>();
    List<Double[]> p99 = new ArrayList<>();
    for (Side side : sides) {
      series.add(result.add(new Series(side.label(), side.role(), options.rounds())));
      p99.add(new Double[options.rounds()]);
    }
    if (!options.warmup().isZero()) {
      context.progress(name + ": warm-up, " + BenchOptions.seconds(options.warmup()) + " each");
      for (Side side : sides) {
        failovers(side, context, backend.name(context, name, side, "warmup"), options.warmup());
      }
    }
    for (int round = 0; round < options.rounds(); round++) {
      StringBuilder line = new StringBuilder(name + " round " + (round + 1) + "/" + options.rounds() + ":");
      for (int k = 0; k < sides.size(); k++) {
        int index = (k + round) % sides.size();
        Side side = sides.get(index);
        Run run = failovers(side, context, backend.name(context, name, side, "r" + (round + 1)), options.window());
        Series s = series.get(index);
        double p50 = run.percentileMicros(0.50);
        s.put(round, p50);
        p99.get(index)[round] = run.percentileMicros(0.99);
        s.putExtra("p99Us", round, p99.get(index)[round]);
        s.putExtra("failovers", round, run.latencies().length);
        line.append(String.format(Locale.ROOT, " %s p50 %,.0f us p99 %,.0f us (%d failovers", side.id(), p50,
            p99.get(index)[round], run.latencies().length));
        if (backend.countsRequests()) {
          s.putExtra("requestsPerFailover", round, run.requestsPerFailover());
          line.append(String.format(Locale.ROOT, ", %.1f requests", run.requestsPerFailover()));
        }
        line.append(");");
      }
      context.progress(line.toString());
    }
    Spread ratio99 = Spread.ofOrNull(new ArrayList<>(Spread.ratios(
        Arrays.asList(p99.get(0)), Arrays.asList(p99.get(1)), false)));
    backend.note(result, series, ratio99, Spread.ofOrNull(Arrays.asList(p99.get(0))),
        Spread.ofOrNull(Arrays.asList(p99.get(1))));
    return result;
  }

  /** Latencies of one window, in nanoseconds, and the requests counted around each (0 if not). */
  private record Run(long[] latencies, double requestsPerFailover) {
    double percentileMicros(double p) {
      return LongSamples.nearestRank(latencies, p) / 1e3;
    }
  }

  private Run failovers(Side side, BenchContext context, String name, Duration window) throws Exception {
    BlockingQueue<Long> gains = new LinkedBlockingQueue<>();
    boolean counts = backend.countsRequests();
    try (Election election = side.opener().open(context)) {
      Participant[] participants = new Participant[PARTICIPANTS];
      int joined = 0;
      for (int c = 0; c < PARTICIPANTS; c++) {
        participants[c] = election.join(c, name, "p" + joined++, gains);
        backend.awaitQueued(context, name, c + 1, side);
      }
      awaitGain(gains, side, name);
      long readingCost = counts ? context.counters().readingCost() : 0;
      LongSamples latencies = new LongSamples();
      List<Double> requests = new ArrayList<>();
      long end = System.nanoTime() + window.toNanos();
      while (latencies.size() < MAX_FAILOVERS
          && (latencies.size() < MIN_FAILOVERS || System.nanoTime() - end < 0)) {
        int leader = leaderOf(participants, side);
        long packetsBefore = counts ? context.counters().packetsReceived() : 0;
        long start = System.nanoTime();
        participants[leader].leave();
        long gainedAt = awaitGain(gains, side, name);
        latencies.add(gainedAt - start);
        if (counts) {
          requests.add((double) (context.counters().packetsReceived() - packetsBefore - readingCost));
        }
        participants[leader] = election.join(leader, name, "p" + joined++, gains);
        backend.awaitQueued(context, name, PARTICIPANTS, side);
      }
      for (Participant p : participants) {
        p.leave();
      }
      backend.awaitQueued(context, name, 0, side);
      long[] sorted = LongSamples.sortedUnion(List.of(latencies));
      return new Run(sorted, requests.isEmpty() ? 0 : Spread.of(requests).median());
    }
  }

  private static int leaderOf(Participant[] participants, Side side) throws BenchFailure {
    long limit = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() - limit < 0) {
      int leaders = 0;
      int leader = -1;
      for (int i = 0; i < participants.length; i++) {
        if (participants[i].leads()) {
          leaders++;
          leader = i;
        }
      }
      if (leaders > 1) {
        throw new BenchFailure(side.label() + ": " + leaders + " participants lead at once");
      }
      if (leader >= 0) {
        return leader;
      }
      Thread.onSpinWait();
    }
    throw new BenchFailure(side.label() + ": no participant leads after " + WAIT.toSeconds() + " s");
  }

  private static long awaitGain(BlockingQueue<Long> gains, Side side, String name) throws Exception {
    Long at = gains.poll(WAIT.toNanos(), TimeUnit.NANOSECONDS);
    if (at == null) {
      throw new BenchFailure(side.label() + ": nobody was told it leads " + name + " within "
          + WAIT.toSeconds() + " s");
    }
    return at;
  }

  // ---- the backends ---------------------------------------------------------------------------

  private static final class ZooKeeperBackend implements Backend {
    @Override
    public String name(BenchContext context, String scenario, Side side, String run) throws Exception {
      return context.freshPath(scenario, side.id(), run);
    }

    /**
     * Polls the server until {@code queued} nodes are there. Closing the clients only once the
     * nodes are gone spares Curator's closed latches errors about requests still on their way.
     */
    @Override
    public void awaitQueued(BenchContext context, String path, int queued, Side side) throws Exception {
      long limit = System.nanoTime() + WAIT.toNanos();
      while (context.childCount(path) != queued) {
        if (System.nanoTime() - limit > 0) {
          throw new BenchFailure(side.label() + ": " + context.childCount(path) + " participants on " + path
              + " instead of " + queued + " after " + WAIT.toSeconds() + " s");
        }
        Thread.sleep(1);
      }
    }

    @Override
    public boolean countsRequests() {
      return true;
    }

    @Override
    public void note(ScenarioResult result, List<Series> series, Spread ratio99, Spread baton99, Spread peer99) {
      if (ratio99 != null && baton99 != null && peer99 != null) {
        result.note(String.format(Locale.ROOT, "p99 of failover: Baton %,.0f us, Curator %,.0f us, ratio %.2fx "
            + "[%.2f-%.2f] (medians over rounds; ratio Curator / Baton within each round)",
            baton99.median(), peer99.median(), ratio99.median(), ratio99.min(), ratio99.max()));
      }
      result.note("requests from the leader's close to the next one leading (median): Baton "
          + requests(series.get(0)) + ", Curator " + requests(series.get(1))
          + " (Baton: the delete; its follower already watches the node and leads on the event; Curator:"
          + " the delete, then the follower lists the children and reads a node)");
    }

    private static String requests(Series s) {
      Spread spread = s.extra("requestsPerFailover");
      return spread == null ? "-" : String.format(Locale.ROOT, "%.1f", spread.median());
    }
  }

  /** Redis cannot be asked who queues: the same pause after each join on both sides. */
  private static final class RedisBackend implements Backend {
    @Override
    public String name(BenchContext context, String scenario, Side side, String run) {
      return "bench:" + scenario + ":" + side.id() + ":" + run;
    }

    @Override
    public void awaitQueued(BenchContext context, String name, int queued, Side side) throws InterruptedException {
      if (queued > 0) {
        Thread.sleep(REDIS_SETTLE_MS);
      }
    }

    @Override
    public boolean countsRequests() {
      return false;
    }

    @Override
    public void note(ScenarioResult result, List<Series> series, Spread ratio99, Spread baton99, Spread peer99) {
      if (ratio99 != null) {
        result.note(String.format(Locale.ROOT, "p99 of failover: ratio Redisson / Baton %.2fx [%.2f-%.2f] within"
            + " each round; Redisson has no latch: its side is an RLock held by the leader, the others in lock()",
            ratio99.median(), ratio99.min(), ratio99.max()));
      }
    }
  }

  // ---- the libraries, with the session settings of the lock scenarios ------------------------

  /** Baton's latches on any backend: its clients differ, the latch and its use do not. */
  private static final class BatonElection<C> implements Election {
    /** A client's {@code leaderLatch(name, id)}. */
    interface LatchMaker<C> {
      LeaderLatch latch(C client, String name, String id);
    }

    private final List<C> clients = new ArrayList<>();
    private final LatchMaker<C> latches;
    private final Consumer<C> closer;

    BatonElection(int count, Function<Integer, C> connect, LatchMaker<C> latches, Consumer<C> closer) {
      this.latches = latches;
      this.closer = closer;
      for (int i = 0; i < count; i++) {
        clients.add(connect.apply(i));
      }
    }

    @Override
    public Participant join(int client, String name, String id, BlockingQueue<Long> gains) {
      LeaderLatch latch = latches.latch(clients.get(client), name, id);
      latch.addListener(new LeadershipListener() {
        @Override
        public void leadershipGained(Lease leadership) {
          gains.add(System.nanoTime());
        }

        @Override
        public void leadershipLost(Lease leadership) { }
      });
      latch.start();
      return new Participant() {
        @Override
        public boolean leads() {
          return latch.hasLeadership();
        }

        @Override
        public void leave() {
          latch.close();
        }
      };
    }

    @Override
    public void close() {
      ParallelClose.closeAll(clients, closer::accept);
    }
  }

  private static final class CuratorElection implements Election {
    private final List<CuratorFramework> clients = new ArrayList<>();

    CuratorElection(String connectString) throws InterruptedException {
      for (int i = 0; i < PARTICIPANTS; i++) {
        CuratorFramework client = CuratorFrameworkFactory.newClient(
            connectString, 30_000, 15_000, new ExponentialBackoffRetry(100, 3));
        clients.add(client);
        client.start();
        if (!client.blockUntilConnected(15, TimeUnit.SECONDS)) {
          close();
          throw new IllegalStateException("Curator could not connect to " + connectString + " within 15 s");
        }
      }
    }

    @Override
    public Participant join(int client, String path, String id, BlockingQueue<Long> gains) throws Exception {
      org.apache.curator.framework.recipes.leader.LeaderLatch latch =
          new org.apache.curator.framework.recipes.leader.LeaderLatch(clients.get(client), path, id);
      latch.addListener(new LeaderLatchListener() {
        @Override
        public void isLeader() {
          gains.add(System.nanoTime());
        }

        @Override
        public void notLeader() { }
      });
      latch.start();
      return new Participant() {
        @Override
        public boolean leads() {
          return latch.hasLeadership();
        }

        @Override
        public void leave() throws Exception {
          if (latch.getState() == org.apache.curator.framework.recipes.leader.LeaderLatch.State.STARTED) {
            latch.close();
          }
        }
      };
    }

    @Override
    public void close() {
      ParallelClose.closeAll(clients, CuratorFramework::close);
    }
  }

  private static final class RedissonElection implements Election {
    private final List<RedissonClient> clients = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();

    RedissonElection(String uri) {
      for (int i = 0; i < PARTICIPANTS; i++) {
        Config config = new Config();
        config.useSingleServer().setAddress(uri);
        clients.add(Redisson.create(config));
      }
    }

    @Override
    public Participant join(int client, String name, String id, BlockingQueue<Long> gains) {
      RLock lock = clients.get(client).getLock(name);
      CountDownLatch done = new CountDownLatch(1);
      boolean[] leading = new boolean[1];
      Thread thread = new Thread(() -> {
        try {
          lock.lockInterruptibly();
          long at = System.nanoTime();
          synchronized (leading) {
            leading[0] = true;
          }
          gains.add(at);
          done.await(); // leads until told to go; the unlock is sent for it (see leave())
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
          // the client shut down under a waiter at the end of a window
        }
      }, "redisson-leader-" + id);
      thread.setDaemon(true);
      threads.add(thread);
      thread.start();
      return new Participant() {
        @Override
        public boolean leads() {
          synchronized (leading) {
            return leading[0];
          }
        }

        @Override
        public void leave() {
          boolean wasLeading;
          synchronized (leading) {
            wasLeading = leading[0];
            leading[0] = false;
          }
          if (wasLeading) {
            lock.unlockAsync(thread.getId()).toCompletableFuture().join();
            done.countDown();
          } else {
            thread.interrupt();
          }
        }
      };
    }

    @Override
    public void close() {
      threads.forEach(Thread::interrupt);
      ParallelClose.closeAll(clients, RedissonClient::shutdown);
    }
  }
}
