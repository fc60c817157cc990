package dev.baton.cli.demo;

import dev.baton.atomic.Counter;
import dev.baton.cli.BatonCommand;
import dev.baton.cli.command.CliException;
import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * One shopper thread of an application node: buys one item at a time until the stock is gone.
 * How it keeps apart from the other buyers depends on the {@link SaleMode}: a read-modify-write
 * of the stock node under the mutex, with the lease's fencing token checked by the stock (lock);
 * a compare-and-set on the stock counter (cas); or nothing (no lock).
 */
public final class Buyer implements Runnable {
  private final String name;
  private final SaleMode mode;
  private final Mutex mutex; // lock mode only
  private final Counter counter; // cas mode only
  private final StockStore stock;
  private final String stockPath;
  private final SaleLedger ledger;
  private final long workNanos;
  private final Duration acquireTimeout;
  private final Samples latencyNanos = new Samples();
  private int sales;

  Buyer(String name, FlashSale.Settings settings, Mutex mutex, Counter counter, StockStore stock,
      String stockPath, SaleLedger ledger) {
    this.name = name;
    this.mode = settings.mode();
    this.mutex = mutex;
    this.counter = counter;
    this.stock = stock;
    this.stockPath = stockPath;
    this.ledger = ledger;
    this.workNanos = settings.work().toNanos();
    this.acquireTimeout = settings.acquireTimeout();
  }

  String name() {
    return name;
  }

  int sales() {
    return sales;
  }

  /** Lock mode: how long each {@code acquire} took; cas mode: how long each sale took, retries included. */
  Samples acquireNanos() {
    return latencyNanos;
  }

  @Override
  public void run() {
    try {
      boolean more = true;
      while (more && !ledger.stopped()) {
        more = switch (mode) {
          case LOCK -> buyUnderLock();
          case CAS -> buyWithCompareAndSet();
          case NO_LOCK -> buyUnguarded();
        };
      }
    } catch (RuntimeException e) {
      ledger.fail(new CliException(name + " failed: " + BatonCommand.describe(e), e));
    }
  }

  /** Returns whether there may be more to buy. */
  private boolean buyUnderLock() {
    long start = System.nanoTime();
    Lease lease = mutex.acquire(acquireTimeout);
    latencyNanos.add(System.nanoTime() - start);
    ledger.acquired();
    try (lease) {
      if (ledger.stopped()) {
        return false;
      }
      StockStore.Stock seen = stock.readStock(stockPath);
      int left = seen.count();
      if (left <= 0) {
        return false;
      }
      work();
      // A lease lost during the work (session expired) may already be someone else's lock:
      // writing now could undo their sale.
      if (!lease.isValid()) {
        throw new CliException("lost the lock (" + lease.state() + ") before writing; sale abandoned");
      }
      // The check above can pass just before a long pause; the stock checking the token closes
      // that gap: a newer holder's write has raised the fence, and this write is refused.
      if (!stock.writeFenced(stockPath, left - 1, lease.fencingToken(), seen)) {
        ledger.staleWriteRejected();
        return true;
      }
      ledger.sold(left, lease.fencingToken());
      sales++;
      return true;
    }
  }

  /**
   * No lock: read the count, then take one with a compare-and-set on the counter's version. A
   * buyer that lost the race learns the new count from the failed attempt and tries again, with
   * its work redone, as optimistic concurrency must; it never takes the count below 0.
   */
  private boolean buyWithCompareAndSet() {
    long start = System.nanoTime();
    long left = counter.get();
    while (left > 0 && !ledger.stopped()) {
      work();
      long seen = counter.compareAndExchange(left, left - 1);
      if (seen == left) {
        latencyNanos.add(System.nanoTime() - start);
        ledger.sold((int) left, 0);
        sales++;
        return true;
      }
      ledger.casConflict();
      left = seen;
    }
    return false;
  }

  /** The same sale without the lock: two buyers can read the same count and both sell. */
  private boolean buyUnguarded() {
    int left = stock.read(stockPath);
    if (left <= 0) {
      return false;
    }
    work();
    stock.write(stockPath, left - 1);
    ledger.sold(left, 0);
    sales++;
    return true;
  }

  // Stands for the application's own work between reading and writing (pricing, payment); it
  // widens the window in which an unguarded read goes stale.
  private void work() {
    if (workNanos > 0) {
      LockSupport.parkNanos(workNanos);
    }
  }
}
