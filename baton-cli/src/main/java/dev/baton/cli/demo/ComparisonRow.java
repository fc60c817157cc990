package dev.baton.cli.demo;

/**
 * One line of {@code baton demo --compare}'s table: a scenario on one backend, with what was seen.
 * Figures a scenario does not measure are negative and print as a dash.
 *
 * @param scenario what ran
 * @param backend where it ran, with the option that matters ({@code Redis + WAIT 1})
 * @param salesPerSecond sales per second of the flash sale
 * @param p50Millis median wait for the lock, in milliseconds
 * @param p99Millis 99th percentile of the wait for the lock, in milliseconds
 * @param overlaps times a second holder was granted the lock while the first had neither released
 *     it nor run out of its lease ({@code validUntil}), whatever its client said meanwhile
 * @param staleRefused writes with an older fencing token that the stock refused
 * @param note what happened, in a few words
 */
public record ComparisonRow(String scenario, String backend, double salesPerSecond, double p50Millis,
    double p99Millis, long overlaps, long staleRefused, String note) {

  static ComparisonRow failureCase(String scenario, String backend, long overlaps, long staleRefused, String note) {
    return new ComparisonRow(scenario, backend, -1, -1, -1, overlaps, staleRefused, note);
  }

  static ComparisonRow sale(String backend, FlashSaleResult result) {
    long overlaps = result.tokenViolation().isPresent() || result.oversold() > 0 ? 1 : 0;
    return new ComparisonRow("flash sale", backend, result.salesPerSecond(),
        result.acquireP50Nanos() / 1e6, result.acquireP99Nanos() / 1e6, overlaps,
        result.staleWritesRejected(), result.sold() + " sold, " + result.stockLeft() + " left");
  }
}
