package dev.baton.cli;

import dev.baton.Lease;
import dev.baton.Mutex;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * One shopper thread of an application node: buys one item at a time until the stock is gone,
 * with a read-modify-write of the stock node that only the mutex (if any) keeps apart from the
 * other buyers'.
 */
final class Buyer implements Runnable {
  private final String name;
  private final Mutex mutex; // null in --no-lock mode
  private final StockClient stock;
  private final String stockPath;
  private final SaleLedger ledger;
  private final long workNanos;
  private final Duration acquireTimeout;
  private final Samples acquireNanos = new Samples();
  private int sales;

  Buyer(String name, Mutex mutex, StockClient stock, String stockPath, SaleLedger ledger,
      Duration work, Duration acquireTimeout) {
    this.name = name;
    this.mutex = mutex;
    this.stock = stock;
    this.stockPath = stockPath;
    this.ledger = ledger;
    this.workNanos = work.toNanos();
    this.acquireTimeout = acquireTimeout;
  }

  String name() {
    return name;
  }

  int sales() {
    return sales;
  }

  Samples acquireNanos() {
    return acquireNanos;
  }

  @Override
  public void run() {
    try {
      boolean more = true;
      while (more && !ledger.stopped()) {
        more = mutex == null ? buyUnguarded() : buyUnderLock();
      }
    } catch (RuntimeException e) {
      ledger.fail(new CliException(name + " failed: " + BatonCommand.describe(e), e));
    }
  }

  /** Returns whether there may be more to buy. */
  private boolean buyUnderLock() {
    long start = System.nanoTime();
    Lease lease = mutex.acquire(acquireTimeout);
    acquireNanos.add(System.nanoTime() - start);
    ledger.acquired();
    try (lease) {
      if (ledger.stopped()) {
        return false;
      }
      int left = stock.read(stockPath);
      if (left <= 0) {
        return false;
      }
      work();
      // A lease lost during the work (session expired) may already be someone else's lock:
      // writing now could undo their sale. Real code would pass the token to the resource too.
      if (!lease.isValid()) {
        throw new CliException("lost the lock (" + lease.state() + ") before writing; sale abandoned");
      }
      stock.write(stockPath, left - 1);
      ledger.sold(left, lease.fencingToken());
      sales++;
      return true;
    }
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
