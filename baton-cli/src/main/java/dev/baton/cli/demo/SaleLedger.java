package dev.baton.cli.demo;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What all buyers of one run share: live counters for the progress bar, the fencing token of
 * each sale, the first failure and the order to stop.
 */
public final class SaleLedger {
  private final int items;
  private final AtomicInteger sold = new AtomicInteger();
  private final AtomicLong acquisitions = new AtomicLong();
  private final AtomicLong casConflicts = new AtomicLong();
  private final AtomicLong staleWritesRejected = new AtomicLong();
  // Indexed by sale number: the sale that took the stock from n to n-1 is number items - n.
  private final AtomicLongArray tokenBySale;
  private final AtomicReference<RuntimeException> failure = new AtomicReference<>();
  private volatile boolean stopped;

  SaleLedger(int items, boolean recordTokens) {
    this.items = items;
    this.tokenBySale = new AtomicLongArray(recordTokens ? items : 0);
  }

  void acquired() {
    acquisitions.incrementAndGet();
  }

  /** Records a sale made when the stock read {@code stockBefore}, under {@code token} (0: no lock). */
  void sold(int stockBefore, long token) {
    sold.incrementAndGet();
    if (tokenBySale.length() > 0) {
      tokenBySale.set(items - stockBefore, token);
    }
  }

  /** A compare-and-set that lost the race to another buyer (cas mode). */
  void casConflict() {
    casConflicts.incrementAndGet();
  }

  /** A stock write the stock refused because its fencing token was stale (lock mode). */
  void staleWriteRejected() {
    staleWritesRejected.incrementAndGet();
  }

  long casConflicts() {
    return casConflicts.get();
  }

  long staleWritesRejected() {
    return staleWritesRejected.get();
  }

  int soldSoFar() {
    return sold.get();
  }

  long acquisitionsSoFar() {
    return acquisitions.get();
  }

  /** Keeps the first failure and asks every buyer to stop. */
  void fail(RuntimeException e) {
    failure.compareAndSet(null, e);
    stop();
  }

  Optional<RuntimeException> failure() {
    return Optional.ofNullable(failure.get());
  }

  void stop() {
    stopped = true;
  }

  boolean stopped() {
    return stopped;
  }

  /**
   * Empty if every recorded sale carries a larger token than the sale before it; otherwise where
   * the order broke. Sales never made (a run stopped early) leave 0 and end the check.
   */
  Optional<String> tokenOrderViolation() {
    for (int sale = 1; sale < tokenBySale.length(); sale++) {
      long before = tokenBySale.get(sale - 1);
      long token = tokenBySale.get(sale);
      if (token == 0) {
        break;
      }
      if (token <= before) {
        return Optional.of(String.format(
            "sale %,d was made under token %d, not above the token %d of sale %,d",
            sale + 1, token, before, sale));
      }
    }
    return Optional.empty();
  }
}
