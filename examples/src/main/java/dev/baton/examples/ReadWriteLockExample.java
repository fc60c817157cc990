package dev.baton.examples;

import dev.baton.Baton;
import dev.baton.lock.Lease;
import dev.baton.lock.ReadWriteLock;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Scenario 8, the read-write lock: readers on two clients hold the read lock at the same time,
 * while a writer waits for both to leave and then writes alone.
 *
 * <p>Run: {@code java dev.baton.examples.ReadWriteLockExample [host:port]}.
 */
public final class ReadWriteLockExample {
  /** Whether the readers overlapped, and whether the writer got in before both readers left. */
  public record Result(boolean readersShared, boolean writerWaitedForReaders) {}

  public static void main(String[] args) {
    DevServers.withZooKeeper(args, zk -> System.out.println(run(zk)));
  }

  public static Result run(String connectString) {
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try (Baton a = Baton.connect(connectString); Baton b = Baton.connect(connectString);
         Baton w = Baton.connect(connectString)) {
      ReadWriteLock catalogA = a.readWriteLock("/catalog");
      ReadWriteLock catalogB = b.readWriteLock("/catalog");
      CountDownLatch bothReading = new CountDownLatch(2);
      CountDownLatch readersMayLeave = new CountDownLatch(1);
      CountDownLatch readersLeft = new CountDownLatch(2);
      Future<Boolean> readerA = pool.submit(() -> read(catalogA, bothReading, readersMayLeave, readersLeft));
      Future<Boolean> readerB = pool.submit(() -> read(catalogB, bothReading, readersMayLeave, readersLeft));
      boolean shared = bothReading.await(30, TimeUnit.SECONDS);
      Future<Boolean> writer = pool.submit(() -> {
        try (Lease write = w.readWriteLock("/catalog").writeLock().acquire(Duration.ofSeconds(30))) {
          return readersLeft.getCount() == 0;
        }
      });
      readersMayLeave.countDown();
      readerA.get(30, TimeUnit.SECONDS);
      readerB.get(30, TimeUnit.SECONDS);
      return new Result(shared, writer.get(30, TimeUnit.SECONDS));
    } catch (Exception e) {
      throw new IllegalStateException("the read-write lock example failed", e);
    } finally {
      pool.shutdownNow();
    }
  }

  private static boolean read(ReadWriteLock lock, CountDownLatch bothReading, CountDownLatch mayLeave,
      CountDownLatch left) throws InterruptedException {
    try (Lease read = lock.readLock().acquire(Duration.ofSeconds(30))) {
      bothReading.countDown();
      return mayLeave.await(30, TimeUnit.SECONDS);
    } finally {
      left.countDown();
    }
  }

  private ReadWriteLockExample() {}
}
