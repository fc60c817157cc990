package dev.baton.bench;

import dev.baton.bench.lock.BenchLock;
import dev.baton.bench.lock.Contender;
import dev.baton.bench.lock.ExclusionGuard;
import dev.baton.bench.lock.LockClient;
import dev.baton.bench.lock.Sharing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One timed window of one contender: {@code clients} sessions with {@code threadsPerClient}
 * threads each, all cycling acquire+release on one path. Connecting happens before the window
 * opens and closing after it ends, so neither is timed. A cycle counts if it ended inside the
 * window.
 */
final class ThroughputRun {
  /** How long past the window threads may take to finish their last cycle. */
  private static final Duration STRAGGLER_LIMIT = Duration.ofSeconds(30);

  private ThroughputRun() {}

  /** What a window measured. */
  record Result(long cycles, Duration window, long[] perClientCycles, long[] sortedLatenciesNanos,
      long serverPackets, long[] sortedHandOversNanos) {

    Result(long cycles, Duration window, long[] perClientCycles, long[] sortedLatenciesNanos, long serverPackets) {
      this(cycles, window, perClientCycles, sortedLatenciesNanos, serverPackets, new long[0]);
    }

    /** Hand-overs to another client measured in the window (none unless asked for). */
    int handOvers() {
      return sortedHandOversNanos.length;
    }

    /** From a holder starting its release to another client's acquire returning; NaN without one. */
    double handOverMicros(double percentile) {
      return sortedHandOversNanos.length == 0 ? Double.NaN
          : LongSamples.nearestRank(sortedHandOversNanos, percentile) / 1_000.0;
    }

    /** Requests the server received per counted cycle (other sessions' pings included, a few a second). */
    double requestsPerCycle() {
      return cycles == 0 || serverPackets < 0 ? Double.NaN : (double) serverPackets / cycles;
    }

    double perSecond() {
      return cycles / (window.toNanos() / 1e9);
    }

    double latencyMicros(double percentile) {
      return LongSamples.nearestRank(sortedLatenciesNanos, percentile) / 1_000.0;
    }

    /** The smallest client's part of all cycles (1 / clients when even). */
    double minShare() {
      long min = Long.MAX_VALUE;
      for (long c : perClientCycles) {
        min = Math.min(min, c);
      }
      return cycles == 0 ? 0 : (double) min / cycles;
    }

    double maxShare() {
      long max = 0;
      for (long c : perClientCycles) {
        max = Math.max(max, c);
      }
      return cycles == 0 ? 0 : (double) max / cycles;
    }
  }

  static Result run(Contender contender, BenchContext context, String path, int clients,
      int threadsPerClient, Duration window) throws Exception {
    return run(contender, context, path, clients, threadsPerClient, window, false, false);
  }

  /**
   * As above; with {@code handOvers}, each acquisition by another client than the last holder's
   * also records the time from that holder starting its release to this acquire returning (for
   * locks of one holder only: a shared lock has no single previous holder). With {@code turns}
   * (and hand-overs), a client that released asks again only once another client has the lock.
   */
  static Result run(Contender contender, BenchContext context, String path, int clients,
      int threadsPerClient, Duration window, boolean handOvers, boolean turns) throws Exception {
    boolean onRedis = contender.library().onRedis();
    boolean onJdbc = contender.library().onJdbc();
    String connectString = onJdbc ? context.jdbcUrl() : onRedis ? context.redisUri() : context.connectString();
    HandOver handOver = handOvers && contender.library().holdersAllowed() == 1 ? new HandOver(turns) : null;
    List<LockClient> opened = new ArrayList<>();
    try {
      for (int i = 0; i < clients; i++) {
        opened.add(contender.library().connect(connectString));
      }
      ExclusionGuard guard = new ExclusionGuard(path, contender.library().holdersAllowed());
      AtomicReference<Throwable> failure = new AtomicReference<>();
      AtomicLongArray perClient = new AtomicLongArray(clients);
      List<LongSamples> latencies = new ArrayList<>();
      List<LongSamples> handOverSamples = new ArrayList<>();
      List<Thread> threads = new ArrayList<>();
      CountDownLatch go = new CountDownLatch(1);
      long[] deadline = new long[1]; // written before go opens, read after: the latch orders it
      for (int c = 0; c < clients; c++) {
        LockClient client = opened.get(c);
        BenchLock shared = contender.sharing() == Sharing.PER_CLIENT ? client.lock(path) : null;
        for (int t = 0; t < threadsPerClient; t++) {
          Worker worker = new Worker(shared != null ? shared : client.lock(path), guard, go, deadline,
              perClient, c, new LongSamples(), failure, handOver, new LongSamples());
          latencies.add(worker.latencies());
          handOverSamples.add(worker.handOvers());
          Thread thread = new Thread(worker, "bench-" + contender.id() + "-c" + c + "-t" + t);
          thread.setDaemon(true);
          threads.add(thread);
          thread.start();
        }
      }
      long packetsBefore = onJdbc ? 0 : requestsSoFar(context, onRedis);
      deadline[0] = System.nanoTime() + window.toNanos();
      go.countDown();
      // Read at the window's end: cycles cut by either end are about as many as they are short.
      TimeUnit.NANOSECONDS.sleep(deadline[0] - System.nanoTime());
      // PostgreSQL's statement counters are flushed late: no request count on the SQL rows.
      long packets = onJdbc ? -1 : requestsSoFar(context, onRedis) - packetsBefore - (onRedis ? 1 : 0);
      long joinBy = deadline[0] + STRAGGLER_LIMIT.toNanos();
      for (Thread thread : threads) {
        thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(joinBy - System.nanoTime())));
        if (thread.isAlive()) {
          failure.compareAndSet(null, new IllegalStateException(
              thread.getName() + " still in a cycle " + STRAGGLER_LIMIT.toSeconds() + " s after its window"));
        }
      }
      if (failure.get() != null) {
        threads.forEach(Thread::interrupt);
        throw asException(failure.get(), contender);
      }
      long[] counts = new long[clients];
      long total = 0;
      for (int c = 0; c < clients; c++) {
        counts[c] = perClient.get(c);
        total += counts[c];
      }
      return new Result(total, window, counts, LongSamples.sortedUnion(latencies), packets,
          LongSamples.sortedUnion(handOverSamples));
    } finally {
      ParallelClose.closeAll(opened, LockClient::close);
    }
  }

  /** Requests the server has received: ZooKeeper's packets, or Redis's commands (the INFO asking counts one). */
  private static long requestsSoFar(BenchContext context, boolean onRedis) throws Exception {
    return onRedis ? context.redisCommandsProcessed() : context.counters().packetsReceived();
  }

  /**
   * The last release of a lock of one holder: when it started and by which client. Written by the
   * holder only, read by the next holder: the lock orders them.
   */
  private static final class HandOver {
    private final boolean turns;
    private volatile long releasedAt;
    private volatile int releasedBy = -1;
    private int holder = -1; // guarded by this: with turns, the client that took the lock last

    HandOver(boolean turns) {
      this.turns = turns;
    }

    /** {@code client} has the lock: a client waiting for its turn may ask again. */
    void took(int client) {
      if (turns) {
        synchronized (this) {
          holder = client;
          notifyAll();
        }
      }
    }

    /** With turns: waits, outside the lock, until another client than {@code client} has taken it, or {@code end}. */
    void awaitTurn(int client, long end) throws InterruptedException {
      if (!turns) {
        return;
      }
      synchronized (this) {
        long left;
        while (holder == client && (left = end - System.nanoTime()) > 0) {
          TimeUnit.NANOSECONDS.timedWait(this, left);
        }
      }
    }
  }

  /** One thread's loop: cycle until the window ends or any thread failed. */
  private record Worker(BenchLock lock, ExclusionGuard guard, CountDownLatch go, long[] deadline,
      AtomicLongArray perClient, int clientIndex, LongSamples latencies,
      AtomicReference<Throwable> failure, HandOver handOver, LongSamples handOvers) implements Runnable {

    @Override
    public void run() {
      try {
        go.await();
        long end = deadline[0];
        while (failure.get() == null) {
          long start = System.nanoTime();
          BenchLock.Held held = lock.acquire();
          guard.enter();
          if (handOver != null) {
            long acquiredAt = System.nanoTime();
            int by = handOver.releasedBy;
            if (by >= 0 && by != clientIndex && acquiredAt - end <= 0) {
              handOvers.add(acquiredAt - handOver.releasedAt);
            }
            handOver.took(clientIndex);
            handOver.releasedAt = System.nanoTime();
            handOver.releasedBy = clientIndex;
          }
          guard.exit();
          held.release();
          long done = System.nanoTime();
          if (done - end > 0) {
            break; // ended outside the window: not counted
          }
          perClient.incrementAndGet(clientIndex);
          latencies.add(done - start);
          if (handOver != null) {
            handOver.awaitTurn(clientIndex, end);
          }
        }
      } catch (Throwable e) {
        failure.compareAndSet(null, e);
      }
    }
  }

  static Exception asException(Throwable failure, Contender contender) {
    if (failure instanceof ExclusionGuard.MutualExclusionViolation violation) {
      return new BenchFailure(contender.label() + ": " + violation.getMessage(), violation);
    }
    return new BenchFailure(contender.label() + " failed: " + failure, failure);
  }
}
