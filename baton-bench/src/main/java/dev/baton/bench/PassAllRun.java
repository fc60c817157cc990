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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Many waiters in one JVM: one client; the main thread holds the lock while {@code waiters}
 * threads queue behind it (all their nodes on the server), then releases, and each waiter passes
 * once. Timed from the release to the last waiter's release; the server's packet counter over the
 * same span gives requests per waiter.
 */
final class PassAllRun {
  private static final Duration QUEUE_LIMIT = Duration.ofSeconds(60);

  private PassAllRun() {}

  /**
   * @param millis time for all to pass, or the cap when {@code capped}
   * @param passed waiters that passed (all of them unless capped)
   */
  record Result(double millis, int passed, boolean capped, double requestsPerWaiter) {}

  static Result run(Contender contender, BenchContext context, String path, int waiters, Duration cap)
      throws Exception {
    LockClient client = contender.library().connect(context.connectString());
    List<Thread> threads = new ArrayList<>();
    AtomicBoolean stopping = new AtomicBoolean();
    try {
      BenchLock shared = contender.sharing() == Sharing.PER_CLIENT ? client.lock(path) : null;
      BenchLock mainLock = shared != null ? shared : client.lock(path);
      ExclusionGuard guard = new ExclusionGuard(path);
      BenchLock.Held first = mainLock.acquire();
      guard.enter();

      CountDownLatch allPassed = new CountDownLatch(waiters);
      AtomicReference<Throwable> failure = new AtomicReference<>();
      for (int i = 0; i < waiters; i++) {
        BenchLock lock = shared != null ? shared : client.lock(path);
        Runnable waiter = () -> {
          try {
            BenchLock.Held held = lock.acquire();
            guard.enter();
            guard.exit();
            held.release();
            allPassed.countDown();
          } catch (Throwable e) {
            if (!stopping.get()) {
              failure.compareAndSet(null, e);
            }
          }
        };
        // Small stacks: 500 platform threads is the point of the scenario, not their memory.
        Thread thread = new Thread(null, waiter, "bench-" + contender.id() + "-w" + i, 256 * 1024);
        thread.setDaemon(true);
        threads.add(thread);
        thread.start();
      }
      awaitQueued(context, path, waiters + 1, failure, contender);

      long packetsBefore = context.counters().packetsReceived();
      long start = System.nanoTime();
      guard.exit();
      first.release();
      boolean all = allPassed.await(cap.toNanos(), TimeUnit.NANOSECONDS);
      long elapsed = System.nanoTime() - start;
      long packetsAfter = context.counters().packetsReceived();
      if (failure.get() != null) {
        throw ThroughputRun.asException(failure.get(), contender);
      }
      int passed = (int) (waiters - allPassed.getCount());
      double perWaiter = passed == 0 ? Double.NaN : (double) (packetsAfter - packetsBefore) / passed;
      double millis = all ? elapsed / 1e6 : cap.toMillis();
      return new Result(millis, passed, !all, perWaiter);
    } finally {
      stopping.set(true);
      threads.forEach(Thread::interrupt);
      client.close();
      for (Thread thread : threads) {
        thread.join(10_000);
      }
    }
  }

  /** Polls the server until every waiter's node is there (nodes, not threads, are what queue). */
  private static void awaitQueued(BenchContext context, String path, int nodes,
      AtomicReference<Throwable> failure, Contender contender) throws Exception {
    long limit = System.nanoTime() + QUEUE_LIMIT.toNanos();
    while (context.childCount(path) < nodes) {
      if (failure.get() != null) {
        throw ThroughputRun.asException(failure.get(), contender);
      }
      if (System.nanoTime() - limit > 0) {
        throw new BenchFailure(contender.label() + ": only " + context.childCount(path) + " of "
            + nodes + " nodes queued on " + path + " after " + QUEUE_LIMIT.toSeconds() + " s");
      }
      Thread.sleep(20);
    }
  }
}
