package dev.baton.cli.demo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a flash-sale run did, for printing and for checking.
 *
 * @param settings what was asked for
 * @param lockPath the mutex the buyers used (or would have, with {@code --no-lock})
 * @param sold sales made: successful writes of stock-1
 * @param stockLeft the count in the stock node after the run
 * @param acquisitions mutex acquisitions, including each buyer's last one that found no stock
 * @param casConflicts compare-and-sets that lost the race to another buyer (cas mode)
 * @param staleWritesRejected stock writes refused by the stock's fence (lock mode; 0 normally)
 * @param elapsed from the first buyer's start to the last buyer's end
 * @param acquireP50Nanos median time {@code acquire} took (cas mode: a sale, retries included)
 * @param acquireP99Nanos 99th percentile of the time {@code acquire} took (cas mode: a sale)
 * @param salesPerNode sales of each node, node 1 first
 * @param tokenViolation where the fencing tokens stopped increasing, if they did (lock mode)
 * @param stoppedEarly whether the run was cancelled (Ctrl-C) before the stock was gone
 */
public record FlashSaleResult(
    FlashSale.Settings settings,
    String lockPath,
    int sold,
    int stockLeft,
    long acquisitions,
    long casConflicts,
    long staleWritesRejected,
    Duration elapsed,
    long acquireP50Nanos,
    long acquireP99Nanos,
    List<Integer> salesPerNode,
    Optional<String> tokenViolation,
    boolean stoppedEarly) {

  public FlashSaleResult {
    salesPerNode = List.copyOf(salesPerNode);
  }

  int items() {
    return settings.items();
  }

  boolean locked() {
    return settings.locked();
  }

  SaleMode mode() {
    return settings.mode();
  }

  /** Items sold that never were in stock. */
  int oversold() {
    return Math.max(0, sold - settings.items());
  }

  double acquisitionsPerSecond() {
    return perSecond(acquisitions);
  }

  double salesPerSecond() {
    return perSecond(sold);
  }

  /**
   * What went against the promise of the lock or the compare-and-set; empty for a correct run. A
   * run without either promises nothing, and one stopped early is only checked for what it did.
   */
  List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (mode() == SaleMode.NO_LOCK) {
      return problems;
    }
    if (oversold() > 0) {
      problems.add(String.format("%,d items oversold although every sale %s", oversold(),
          locked() ? "held the lock" : "was a compare-and-set"));
    }
    if (sold + stockLeft != items()) {
      problems.add(String.format("%,d sales, yet the stock fell from %,d to %,d: updates were lost",
          sold, items(), stockLeft));
    } else if (!stoppedEarly && stockLeft != 0) {
      problems.add(String.format("the buyers stopped with %,d items still in stock", stockLeft));
    }
    tokenViolation.ifPresent(v -> problems.add("fencing tokens out of order: " + v));
    return problems;
  }

  private double perSecond(long count) {
    double seconds = elapsed.toNanos() / 1e9;
    return seconds <= 0 ? 0 : count / seconds;
  }
}
