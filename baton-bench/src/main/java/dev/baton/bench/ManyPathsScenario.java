package dev.baton.bench;

import dev.baton.bench.lock.BatonLibrary;
import dev.baton.bench.lock.BenchLock;
import dev.baton.bench.lock.Contender;
import dev.baton.bench.lock.CuratorLibrary;
import dev.baton.bench.lock.LockClient;
import dev.baton.bench.lock.Role;
import dev.baton.bench.lock.Sharing;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code mutex-100k-paths}: scale in the number of locks. One client takes and releases each of
 * many distinct lock paths once (16 threads share the work; every path is new, so its container
 * parent is created on first use, for both libraries). Reported: paths per second, and the heap
 * in use after a full GC at the end against the same at the start, with the client still open:
 * nothing may be kept per path once its lock is released.
 */
final class ManyPathsScenario implements Scenario {
  static final String NAME = "mutex-100k-paths";
  private static final int THREADS = 16;

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public ScenarioResult run(BenchContext context) throws Exception {
    int paths = context.options().paths();
    ScenarioResult result = new ScenarioResult(NAME, "paths/s", true,
        "1 client, " + THREADS + " threads, " + String.format("%,d", paths)
            + " distinct lock paths each taken and released once");
    List<Contender> contenders = List.of(
        new Contender("baton", "Baton Mutex", Role.BATON, new BatonLibrary(), Sharing.PER_THREAD),
        new Contender("curator", "Curator InterProcessMutex", Role.CURATOR, new CuratorLibrary(), Sharing.PER_THREAD));
    List<Series> series = new ArrayList<>();
    for (Contender c : contenders) {
      series.add(result.add(new Series(c.label(), c.role(), 1)));
    }
    // One round each: the run is long, and the figure is about scale rather than a close ratio.
    StringBuilder line = new StringBuilder(NAME + ":");
    for (int k = 0; k < contenders.size(); k++) {
      Contender c = contenders.get(k);
      String base = context.freshPath(NAME, c.id(), "r1");
      try (LockClient client = c.library().connect(context.connectString())) {
        double before = usedHeapAfterGcMb();
        long start = System.nanoTime();
        AtomicInteger next = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
          List<Future<?>> workers = new ArrayList<>();
          for (int t = 0; t < THREADS; t++) {
            workers.add(pool.submit(() -> {
              for (int i = next.getAndIncrement(); i < paths; i = next.getAndIncrement()) {
                BenchLock lock = client.lock(base + "/p" + (i % 100) + "/lock-" + i);
                lock.acquire().release();
              }
              return null;
            }));
          }
          for (Future<?> worker : workers) {
            worker.get();
          }
        } finally {
          pool.shutdownNow();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        client.roundTrip(base); // every release has reached the server
        double after = usedHeapAfterGcMb();
        Series s = series.get(k);
        s.put(0, paths / seconds);
        s.putExtra("ms", 0, seconds * 1000);
        s.putExtra("heapGrowthMB", 0, after - before);
        line.append(String.format(" %s %,.0f paths/s, heap after GC %+.1f MB;", c.id(), paths / seconds, after - before));
      }
    }
    context.progress(line.toString());
    result.note("Heap growth: heap in use after a full GC once all paths were released, less the same "
        + "before the first; the client is still open.");
    return result;
  }

  private static double usedHeapAfterGcMb() {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / (1024.0 * 1024.0);
  }
}
