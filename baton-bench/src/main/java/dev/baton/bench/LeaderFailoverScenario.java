package dev.baton.bench;

import dev.baton.Baton;
import dev.baton.bench.lock.Role;
import dev.baton.leader.LeaderLatch;
import dev.baton.leader.LeadershipListener;
import dev.baton.lock.Lease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * {@code leader-failover}: how long leadership takes to pass when the leader leaves. Three
 * sessions each run one latch on one path; the leader's latch is closed and the time until the
 * next participant's listener is told it leads is taken (lower is better, so the ratio is Curator
 * / Baton). The leaving client joins again at the back, so three are always queued; each
 * failover starts once all three nodes are on the server. Baton LeaderLatch and Curator
 * LeaderLatch alternate window by window on one server; each listener is added as its library
 * does by default (Baton: the client's event thread; Curator: ZooKeeper's event thread).
 */
final class LeaderFailoverScenario implements Scenario {
  static final String NAME = "leader-failover";
  private static final int PARTICIPANTS = 3;
  private static final int MIN_FAILOVERS = 10;
  private static final int MAX_FAILOVERS = 500;
  private static final Duration WAIT = Duration.ofSeconds(30);

  /** One library's latches: the two sides differ only here. */
  private interface Election extends AutoCloseable {
    /** A started participant on client {@code client} that reports its gains to {@code gains}. */
    Participant join(int client, String path, String id, BlockingQueue<Long> gains) throws Exception;

    @Override
    void close();
  }

  private interface Participant {
    boolean leads();

    void leave() throws Exception;
  }

  private record Side(String id, String label, Role role) {}

  private static final List<Side> SIDES = List.of(
      new Side("baton", "Baton LeaderLatch", Role.BATON),
      new Side("curator", "Curator LeaderLatch", Role.CURATOR));

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public ScenarioResult run(BenchContext context) throws Exception {
    BenchOptions options = context.options();
    ScenarioResult result = new ScenarioResult(NAME, "us", false,
        PARTICIPANTS + " sessions, one latch each; the leader's latch closed -> the next one's listener told "
            + "(p50 over the failovers of a round)");
    List<Series> series = new ArrayList<>();
    List<Double[]> p99 = new ArrayList<>();
    for (Side side : SIDES) {
      series.add(result.add(new Series(side.label(), side.role(), options.rounds())));
      p99.add(new Double[options.rounds()]);
    }
    if (!options.warmup().isZero()) {
      context.progress(NAME + ": warm-up, " + BenchOptions.seconds(options.warmup()) + " each");
      for (Side side : SIDES) {
        failovers(side, context, context.freshPath(NAME, side.id(), "warmup"), options.warmup());
      }
    }
    for (int round = 0; round < options.rounds(); round++) {
      StringBuilder line = new StringBuilder(NAME + " round " + (round + 1) + "/" + options.rounds() + ":");
      for (int k = 0; k < SIDES.size(); k++) {
        int index = (k + round) % SIDES.size();
        Side side = SIDES.get(index);
        Run run = failovers(side, context, context.freshPath(NAME, side.id(), "r" + (round + 1)), options.window());
        Series s = series.get(index);
        double p50 = run.percentileMicros(0.50);
        s.put(round, p50);
        p99.get(index)[round] = run.percentileMicros(0.99);
        s.putExtra("p99Us", round, p99.get(index)[round]);
        s.putExtra("failovers", round, run.latencies().length);
        s.putExtra("requestsPerFailover", round, run.requestsPerFailover());
        line.append(String.format(Locale.ROOT, " %s p50 %,.0f us p99 %,.0f us (%d failovers, %.1f requests);", side.id(), p50,
            p99.get(index)[round], run.latencies().length, run.requestsPerFailover()));
      }
      context.progress(line.toString());
    }
    Spread ratio99 = Spread.ofOrNull(new ArrayList<>(Spread.ratios(
        Arrays.asList(p99.get(0)), Arrays.asList(p99.get(1)), false)));
    Spread baton99 = Spread.ofOrNull(Arrays.asList(p99.get(0)));
    Spread curator99 = Spread.ofOrNull(Arrays.asList(p99.get(1)));
    if (ratio99 != null && baton99 != null && curator99 != null) {
      result.note(String.format(Locale.ROOT, "p99 of failover: Baton %,.0f us, Curator %,.0f us, ratio %.2fx "
          + "[%.2f-%.2f] (medians over rounds; ratio Curator / Baton within each round)",
          baton99.median(), curator99.median(), ratio99.median(), ratio99.min(), ratio99.max()));
    }
    result.note("requests from the leader's close to the next one leading (median): Baton "
        + requests(series.get(0)) + ", Curator " + requests(series.get(1))
        + " (Baton: the delete; its follower already watches the node and leads on the event; Curator:"
        + " the delete, then the follower lists the children and reads a node)");
    return result;
  }

  private static String requests(Series s) {
    Spread spread = s.extra("requestsPerFailover");
    return spread == null ? "-" : String.format(Locale.ROOT, "%.1f", spread.median());
  }

  /** Latencies of one window, in nanoseconds, and the requests counted around each. */
  private record Run(long[] latencies, double requestsPerFailover) {
    double percentileMicros(double p) {
      return LongSamples.nearestRank(latencies, p) / 1e3;
    }
  }

  private static Run failovers(Side side, BenchContext context, String path, Duration window) throws Exception {
    BlockingQueue<Long> gains = new LinkedBlockingQueue<>();
    try (Election election = side.role() == Role.BATON
        ? new BatonElection(context.connectString()) : new CuratorElection(context.connectString())) {
      Participant[] participants = new Participant[PARTICIPANTS];
      int joined = 0;
      for (int c = 0; c < PARTICIPANTS; c++) {
        participants[c] = election.join(c, path, "p" + joined++, gains);
        awaitQueued(context, path, c + 1, side);
      }
      awaitGain(gains, side, path);
      long readingCost = context.counters().readingCost();
      LongSamples latencies = new LongSamples();
      List<Double> requests = new ArrayList<>();
      long end = System.nanoTime() + window.toNanos();
      while (latencies.size() < MAX_FAILOVERS
          && (latencies.size() < MIN_FAILOVERS || System.nanoTime() - end < 0)) {
        int leader = leaderOf(participants, side);
        long packetsBefore = context.counters().packetsReceived();
        long start = System.nanoTime();
        participants[leader].leave();
        long gainedAt = awaitGain(gains, side, path);
        latencies.add(gainedAt - start);
        requests.add((double) (context.counters().packetsReceived() - packetsBefore - readingCost));
        participants[leader] = election.join(leader, path, "p" + joined++, gains);
        awaitQueued(context, path, PARTICIPANTS, side);
      }
      for (Participant p : participants) {
        p.leave();
      }
      // Closing the clients only once the nodes are gone spares Curator's closed latches errors
      // about requests still on their way.
      awaitQueued(context, path, 0, side);
      long[] sorted = LongSamples.sortedUnion(List.of(latencies));
      return new Run(sorted, Spread.of(requests).median());
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

  private static long awaitGain(BlockingQueue<Long> gains, Side side, String path) throws Exception {
    Long at = gains.poll(WAIT.toNanos(), TimeUnit.NANOSECONDS);
    if (at == null) {
      throw new BenchFailure(side.label() + ": nobody was told it leads " + path + " within " + WAIT.toSeconds() + " s");
    }
    return at;
  }

  /** Polls the server until {@code nodes} participants are queued (outside the timed part). */
  private static void awaitQueued(BenchContext context, String path, int nodes, Side side) throws Exception {
    long limit = System.nanoTime() + WAIT.toNanos();
    while (context.childCount(path) != nodes) {
      if (System.nanoTime() - limit > 0) {
        throw new BenchFailure(side.label() + ": " + context.childCount(path) + " participants on " + path
            + " instead of " + nodes + " after " + WAIT.toSeconds() + " s");
      }
      Thread.sleep(1);
    }
  }

  // ---- the two libraries, with the session settings of the lock scenarios --------------------

  private static final class BatonElection implements Election {
    private final List<Baton> clients = new ArrayList<>();

    BatonElection(String connectString) {
      for (int i = 0; i < PARTICIPANTS; i++) {
        clients.add(Baton.builder().connectString(connectString).sessionTimeout(Duration.ofSeconds(30))
            .connectionTimeout(Duration.ofSeconds(15)).build());
      }
    }

    @Override
    public Participant join(int client, String path, String id, BlockingQueue<Long> gains) {
      LeaderLatch latch = clients.get(client).leaderLatch(path, id);
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
      ParallelClose.closeAll(clients, Baton::close);
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
}
