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
      long serverPackets) {

    /** Requests the server received per counted cycle (other sessions' pings included, a few a second). */
    double requestsPerCycle() {
      return cycles == 0 ? Double.NaN : (double) serverPackets / cycles;
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
    boolean onRedis = contender.library().onRedis();
    String connectString = onRedis ? context.redisUri() : context.connectString();
    List<LockClient> opened = new ArrayList<>();
    try {
      for (int i = 0; i < clients; i++) {
        opened.add(contender.library().connect(connectString));
      }
      ExclusionGuard guard = new ExclusionGuard(path, contender.library().holdersAllowed());
      AtomicReference<Throwable> failure = new AtomicReference<>();
      AtomicLongArray perClient = new AtomicLongArray(clients);
      List<LongSamples> latencies = new ArrayList<>();
      List<Thread> threads = new ArrayList<>();
      CountDownLatch go = new CountDownLatch(1);
      long[] deadline = new long[1]; // written before go opens, read after: the latch orders it
      for (int c = 0; c < clients; c++) {
        LockClient client = opened.get(c);
        BenchLock shared = contender.sharing() == Sharing.PER_CLIENT ? client.lock(path) : null;
        for (int t = 0; t < threadsPerClient; t++) {
          Worker worker = new Worker(shared != null ? shared : client.lock(path), guard, go, deadline,
              perClient, c, new LongSamples(), failure);
          latencies.add(worker.latencies());
          Thread thread = new Thread(worker, "bench-" + contender.id() + "-c" + c + "-t" + t);
          thread.setDaemon(true);
          threads.add(thread);
          thread.start();
        }
      }
      long packetsBefore = requestsSoFar(context, onRedis);
      deadline[0] = System.nanoTime() + window.toNanos();
      go.countDown();
      // Read at the window's end: cycles cut by either end are about as many as they are short.
      TimeUnit.NANOSECONDS.sleep(deadline[0] - System.nanoTime());
      long packets = requestsSoFar(context, onRedis) - packetsBefore - (onRedis ? 1 : 0);
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
      return new Result(total, window, counts, LongSamples.sortedUnion(latencies), packets);
    } finally {
      ParallelClose.closeAll(opened, LockClient::close);
    }
  }

  /** Requests the server has received: ZooKeeper's packets, or Redis's commands (the INFO asking counts one). */
  private static long requestsSoFar(BenchContext context, boolean onRedis) throws Exception {
    return onRedis ? context.redisCommandsProcessed() : context.counters().packetsReceived();
  }

  /** One thread's loop: cycle until the window ends or any thread failed. */
  private record Worker(BenchLock lock, ExclusionGuard guard, CountDownLatch go, long[] deadline,
      AtomicLongArray perClient, int clientIndex, LongSamples latencies,
      AtomicReference<Throwable> failure) implements Runnable {

    @Override
    public void run() {
      try {
        go.await();
        long end = deadline[0];
        while (failure.get() == null) {
          long start = System.nanoTime();
          BenchLock.Held held = lock.acquire();
          guard.enter();
          guard.exit();
          held.release();
          long done = System.nanoTime();
          if (done - end > 0) {
            break; // ended outside the window: not counted
          }
          perClient.incrementAndGet(clientIndex);
          latencies.add(done - start);
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
