package dev.baton.bench;

import dev.baton.Baton;
import dev.baton.bench.lock.Contender;
import dev.baton.bench.lock.CuratorLibrary;
import dev.baton.bench.lock.ExclusionGuard;
import dev.baton.bench.lock.Role;
import dev.baton.bench.lock.Sharing;
import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import dev.baton.lock.MutexOptions;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code mutex-async-10k}: waiters without threads. One Baton client queues {@value #WAITERS}
 * {@code acquireAsync} waiters on one lock behind a holder, then all pass once; beside it Curator
 * with 500 threads (one {@code InterProcessMutex} each), the most its model sensibly runs. The
 * figure is waiters passed per second after the holder lets go; the peak heap in use and the
 * process's peak thread count are reported with it (the goal: at most 64 threads, 256 MB).
 *
 * <p>Two variants. {@code mutex-async-10k}: Baton with local hand-over, the waiters queue inside
 * the client behind one node. {@code mutex-async-10k-default}: Baton in its default mode, one
 * node per waiter, ten thousand nodes on the server; the waiters of the client share their
 * listings of the lock's children and learn from each other which nodes are gone, so queueing
 * costs a few listings and a hand-over none. (Before that sharing, every waiter listed the
 * children itself: ten thousand listings of up to 10,000 names, and a 1 GB heap ran out.)
 */
final class AsyncWaitersScenario implements Scenario {
  static final String NAME = "mutex-async-10k";
  static final String DEFAULT_MODE_NAME = "mutex-async-10k-default";
  static final int WAITERS = 10_000;
  private static final int CURATOR_WAITERS = 500;
  private static final Duration CAP = Duration.ofMinutes(3);

  private final String name;
  private final String mode;
  private final String modeId;
  private final MutexOptions mutexOptions;

  /** Baton with local hand-over (at most 8 in a row). */
  AsyncWaitersScenario() {
    this(NAME, "local hand-over (8)", "baton-cohorted", MutexOptions.defaults().withLocalHandOver(8));
  }

  private AsyncWaitersScenario(String name, String mode, String modeId, MutexOptions options) {
    this.name = name;
    this.mode = mode;
    this.modeId = modeId;
    this.mutexOptions = options;
  }

  /** Baton in the default mode: one node per waiter. */
  static AsyncWaitersScenario defaultMode() {
    return new AsyncWaitersScenario(DEFAULT_MODE_NAME, "default mode", "baton-default", MutexOptions.defaults());
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public ScenarioResult run(BenchContext context) throws Exception {
    BenchOptions options = context.options();
    int rounds = options.asyncRounds();
    ScenarioResult result = new ScenarioResult(name, "waiters passed/s", true,
        "1 client; Baton: " + WAITERS + " acquireAsync waiters on one Mutex (" + mode + "); Curator: "
            + CURATOR_WAITERS + " threads, one InterProcessMutex each; all queued behind a holder, then all pass once");
    Series baton = result.add(new Series("Baton, " + WAITERS + " async waiters, " + mode, Role.BATON, rounds));
    Series curator = result.add(new Series("Curator, " + CURATOR_WAITERS + " threads", Role.CURATOR, rounds));
    Contender curatorContender = new Contender("curator", "Curator InterProcessMutex (one per thread)",
        Role.CURATOR, new CuratorLibrary(), Sharing.PER_THREAD);
    for (int round = 0; round < rounds; round++) {
      Measured local = runBaton(context, context.freshPath(name, modeId, "r" + (round + 1)), mutexOptions);
      record(baton, round, local);
      baton.putExtra("queueMs", round, local.queueMillis);
      resetPeaks();
      PassAllRun.Result run = PassAllRun.run(curatorContender, context,
          context.freshPath(name, "curator", "r" + (round + 1)), CURATOR_WAITERS, CAP);
      Measured theirs = new Measured(CURATOR_WAITERS / (run.millis() / 1000.0), run.millis(), peakHeapMb(),
          threads().getPeakThreadCount(), run.requestsPerWaiter(), Double.NaN);
      record(curator, round, theirs);
      context.progress(String.format("%s round %d/%d: baton %,.0f ms for %d (queued in %,.0f ms; %,.0f MB, %d threads); "
              + "curator %,.0f ms for %d (%,.0f MB, %d threads)", name, round + 1, rounds, local.millis, WAITERS,
          local.queueMillis, local.peakHeapMb, local.peakThreads, theirs.millis, CURATOR_WAITERS, theirs.peakHeapMb, theirs.peakThreads));
    }
    result.note("Peak heap is the sum of the heap pools' peaks since the run began (an upper bound of the "
        + "heap in use); peak threads are the whole benchmark process's, the server being in its own.");
    return result;
  }

  /** {@code queueMillis}: from the first acquireAsync until every node is on the server (Baton only). */
  private record Measured(double perSecond, double millis, double peakHeapMb, int peakThreads,
      double requestsPerWaiter, double queueMillis) {}

  private static void record(Series series, int round, Measured m) {
    series.put(round, m.perSecond);
    series.putExtra("ms", round, m.millis);
    series.putExtra("peakHeapMB", round, m.peakHeapMb);
    series.putExtra("peakThreads", round, m.peakThreads);
    series.putExtra("requestsPerWaiter", round, m.requestsPerWaiter);
  }

  private static Measured runBaton(BenchContext context, String path, MutexOptions options) throws Exception {
    System.gc();
    resetPeaks();
    try (Baton client = Baton.builder().connectString(context.connectString())
        .sessionTimeout(Duration.ofSeconds(30)).connectionTimeout(Duration.ofSeconds(15)).build()) {
      Mutex holderMutex = client.mutex(path);
      Mutex mutex = client.mutex(path, options);
      Lease holder = holderMutex.acquire();
      ExclusionGuard guard = new ExclusionGuard(path);
      guard.enter();
      CountDownLatch passed = new CountDownLatch(WAITERS);
      List<CompletableFuture<Void>> waiters = new ArrayList<>(WAITERS);
      long queueing = System.nanoTime();
      for (int i = 0; i < WAITERS; i++) {
        waiters.add(mutex.acquireAsync().thenAccept(lease -> {
          try {
            guard.enter();
            guard.exit();
          } finally {
            lease.close();
            passed.countDown();
          }
        }));
      }
      int nodes = options.sharesNode() ? 2 : WAITERS + 1;
      long limit = System.nanoTime() + CAP.toNanos();
      while (context.childCount(path) < nodes) {
        if (System.nanoTime() - limit > 0) {
          throw new BenchFailure("Baton: only " + context.childCount(path) + " of " + nodes + " nodes queued on " + path);
        }
        Thread.sleep(20);
      }
      double queueMillis = (System.nanoTime() - queueing) / 1e6;
      long packetsBefore = context.counters().packetsReceived();
      long start = System.nanoTime();
      guard.exit();
      holder.close();
      if (!passed.await(CAP.toNanos(), TimeUnit.NANOSECONDS)) {
        throw new BenchFailure("Baton: " + passed.getCount() + " of " + WAITERS + " async waiters had not passed after "
            + CAP.toMinutes() + " min");
      }
      double millis = (System.nanoTime() - start) / 1e6;
      double requests = (double) (context.counters().packetsReceived() - packetsBefore) / WAITERS;
      try {
        CompletableFuture.allOf(waiters.toArray(new CompletableFuture<?>[0])).join();
      } catch (java.util.concurrent.CompletionException e) {
        throw new BenchFailure("Baton: an async waiter failed on " + path + ": " + e.getCause(), e.getCause());
      }
      return new Measured(WAITERS / (millis / 1000.0), millis, peakHeapMb(), threads().getPeakThreadCount(), requests,
          queueMillis);
    }
  }

  private static ThreadMXBean threads() {
    return ManagementFactory.getThreadMXBean();
  }

  private static void resetPeaks() {
    threads().resetPeakThreadCount();
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        pool.resetPeakUsage();
      }
    }
  }

  private static double peakHeapMb() {
    long bytes = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        bytes += pool.getPeakUsage().getUsed();
      }
    }
    return bytes / (1024.0 * 1024.0);
  }
}
