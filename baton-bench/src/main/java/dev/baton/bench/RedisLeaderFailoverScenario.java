package dev.baton.bench;

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
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * {@code redis-leader-failover}: how long leadership takes to pass on Redis when the leader
 * leaves. Three clients, one participant each, on one name; the leader leaves and the time until
 * the next participant is running as leader is taken (lower is better: the ratio is Redisson /
 * Baton). The one that left joins again, and the next failover starts {@value #SETTLE_MS} ms later
 * (the same pause on both sides: time for the newcomer to queue or subscribe), so two always wait.
 *
 * <p>Baton: {@code RedisBaton.leaderLatch(name, id)}; leaving is {@code latch.close()}, leading is
 * its listener's {@code leadershipGained} (on the client's event thread, the default). Redisson has
 * no leader latch: the usual Redisson election is an {@code RLock} (watchdog lease) that the leader
 * holds, the others blocking in {@code lock()} (here {@code lockInterruptibly()}, the same wait, so
 * the benchmark can end them); leaving is the leader's unlock, sent from the timing thread as {@code
 * unlockAsync(leaderThreadId)} so no thread hop is timed on Redisson's side; leading is {@code
 * lockInterruptibly()} returning in the next participant's thread.
 */
final class RedisLeaderFailoverScenario implements Scenario {
  static final String NAME = "redis-leader-failover";
  private static final int PARTICIPANTS = 3;
  private static final int MIN_FAILOVERS = 10;
  private static final int MAX_FAILOVERS = 500;
  private static final long SETTLE_MS = 50;
  private static final Duration WAIT = Duration.ofSeconds(30);

  private interface Election extends AutoCloseable {
    Participant join(int client, String name, String id, BlockingQueue<Long> gains) throws Exception;

    @Override
    void close();
  }

  private interface Participant {
    boolean leads();

    void leave() throws Exception;
  }

  private record Side(String id, String label, Role role) {}

  private static final List<Side> SIDES = List.of(
      new Side("baton-redis", "Baton LeaderLatch on Redis", Role.BATON),
      new Side("redisson", "Redisson RLock election (lock() held by the leader)", Role.CURATOR));

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public ScenarioResult run(BenchContext context) throws Exception {
    BenchOptions options = context.options();
    String uri = context.redisUri();
    ScenarioResult result = new ScenarioResult(NAME, "us", false,
        "Redis: " + PARTICIPANTS + " clients, one participant each; the leader leaves -> the next one runs as leader"
            + " (p50 over the failovers of a round)");
    List<Series> series = new ArrayList<>();
    List<Double[]> p99 = new ArrayList<>();
    for (Side side : SIDES) {
      series.add(result.add(new Series(side.label(), side.role(), options.rounds())));
      p99.add(new Double[options.rounds()]);
    }
    if (!options.warmup().isZero()) {
      context.progress(NAME + ": warm-up, " + BenchOptions.seconds(options.warmup()) + " each");
      for (Side side : SIDES) {
        failovers(side, uri, "bench:" + NAME + ":" + side.id() + ":warmup", options.warmup());
      }
    }
    for (int round = 0; round < options.rounds(); round++) {
      StringBuilder line = new StringBuilder(NAME + " round " + (round + 1) + "/" + options.rounds() + ":");
      for (int k = 0; k < SIDES.size(); k++) {
        int index = (k + round) % SIDES.size();
        Side side = SIDES.get(index);
        long[] run = failovers(side, uri, "bench:" + NAME + ":" + side.id() + ":r" + (round + 1), options.window());
        double p50 = LongSamples.nearestRank(run, 0.50) / 1e3;
        p99.get(index)[round] = LongSamples.nearestRank(run, 0.99) / 1e3;
        Series s = series.get(index);
        s.put(round, p50);
        s.putExtra("p99Us", round, p99.get(index)[round]);
        s.putExtra("failovers", round, run.length);
        line.append(String.format(Locale.ROOT, " %s p50 %,.0f us p99 %,.0f us (%d failovers);", side.id(), p50,
            p99.get(index)[round], run.length));
      }
      context.progress(line.toString());
    }
    Spread ratio99 = Spread.ofOrNull(new ArrayList<>(Spread.ratios(
        Arrays.asList(p99.get(0)), Arrays.asList(p99.get(1)), false)));
    if (ratio99 != null) {
      result.note(String.format(Locale.ROOT, "p99 of failover: ratio Redisson / Baton %.2fx [%.2f-%.2f] within"
          + " each round; Redisson has no latch: its side is an RLock held by the leader, the others in lock()",
          ratio99.median(), ratio99.min(), ratio99.max()));
    }
    return result;
  }

  /** The failover latencies of one window, sorted, in nanoseconds. */
  private static long[] failovers(Side side, String uri, String name, Duration window) throws Exception {
    BlockingQueue<Long> gains = new LinkedBlockingQueue<>();
    try (Election election = side.role() == Role.BATON ? new BatonElection(uri) : new RedissonElection(uri)) {
      Participant[] participants = new Participant[PARTICIPANTS];
      int joined = 0;
      for (int c = 0; c < PARTICIPANTS; c++) {
        participants[c] = election.join(c, name, "p" + joined++, gains);
        Thread.sleep(SETTLE_MS);
      }
      awaitGain(gains, side, name);
      LongSamples latencies = new LongSamples();
      long end = System.nanoTime() + window.toNanos();
      while (latencies.size() < MAX_FAILOVERS
          && (latencies.size() < MIN_FAILOVERS || System.nanoTime() - end < 0)) {
        int leader = leaderOf(participants, side);
        long start = System.nanoTime();
        participants[leader].leave();
        long gainedAt = awaitGain(gains, side, name);
        latencies.add(gainedAt - start);
        participants[leader] = election.join(leader, name, "p" + joined++, gains);
        Thread.sleep(SETTLE_MS);
      }
      for (Participant p : participants) {
        p.leave();
      }
      return LongSamples.sortedUnion(List.of(latencies));
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
      throw new BenchFailure(side.label() + ": nobody was told it leads " + name + " within " + WAIT.toSeconds() + " s");
    }
    return at;
  }

  private static final class BatonElection implements Election {
    private final List<RedisBaton> clients = new ArrayList<>();

    BatonElection(String uri) {
      for (int i = 0; i < PARTICIPANTS; i++) {
        clients.add(RedisBaton.connect(uri));
      }
    }

    @Override
    public Participant join(int client, String name, String id, BlockingQueue<Long> gains) {
      LeaderLatch latch = clients.get(client).leaderLatch(name, id);
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
      ParallelClose.closeAll(clients, RedisBaton::close);
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
