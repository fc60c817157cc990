package dev.baton.cli.demo;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/** Prints a {@link FlashSaleResult} as the demo's summary table and verdict. */
public final class DemoReport {
  private DemoReport() {}

  static void print(FlashSaleResult r, PrintWriter out) {
    out.println();
    row(out, "items", number(r.items()));
    row(out, "sold", number(r.sold()));
    row(out, "oversold", number(r.oversold()));
    row(out, "left in stock", number(r.stockLeft()));
    switch (r.mode()) {
      case LOCK -> {
        row(out, "lock acquisitions", number(r.acquisitions()));
        row(out, "acquisitions per second", number(Math.round(r.acquisitionsPerSecond())));
        row(out, "acquire latency p50", millis(r.acquireP50Nanos()));
        row(out, "acquire latency p99", millis(r.acquireP99Nanos()));
      }
      case CAS -> {
        row(out, "lock acquisitions", "none (--mode cas)");
        row(out, "CAS conflicts (retries)", number(r.casConflicts()));
        row(out, "sales per second", number(Math.round(r.salesPerSecond())));
        row(out, "sale latency p50", millis(r.acquireP50Nanos()));
        row(out, "sale latency p99", millis(r.acquireP99Nanos()));
      }
      case NO_LOCK -> {
        row(out, "lock acquisitions", "none (--no-lock)");
        row(out, "sales per second", number(Math.round(r.salesPerSecond())));
      }
    }
    row(out, "elapsed", String.format(Locale.US, "%.1f s", r.elapsed().toNanos() / 1e9));
    out.println();
    printShares(r, out);
    out.println();
    switch (r.mode()) {
      case LOCK -> {
        out.println(r.tokenViolation().isEmpty()
            ? "fencing tokens: strictly increasing"
            : "fencing tokens: NOT increasing: " + r.tokenViolation().get());
        out.println("stale writes rejected by the stock's fence: " + number(r.staleWritesRejected()));
      }
      case CAS -> out.println("fencing tokens: none (--mode cas: no lock; each sale is a compare-and-set"
          + " on the stock's version)");
      case NO_LOCK -> out.println("fencing tokens: none (--no-lock)");
    }
    printVerdict(r, out);
    out.flush();
  }

  private static void printShares(FlashSaleResult r, PrintWriter out) {
    List<Integer> sales = r.salesPerNode();
    out.printf(Locale.US, "  %-8s %10s %8s%n", "node", "sales", "share");
    for (int n = 0; n < sales.size(); n++) {
      double share = r.sold() == 0 ? 0 : 100.0 * sales.get(n) / r.sold();
      out.printf(Locale.US, "  %-8s %10s %7.1f%%%n", "node-" + (n + 1), number(sales.get(n)), share);
    }
  }

  private static void printVerdict(FlashSaleResult r, PrintWriter out) {
    if (r.stoppedEarly()) {
      out.println("Stopped early: " + number(r.sold()) + " of " + number(r.items()) + " items sold.");
    }
    if (r.mode() == SaleMode.LOCK) {
      if (r.problems().isEmpty() && !r.stoppedEarly()) {
        out.println("OK: every item sold exactly once, each sale under the lock with a higher token than the last.");
      }
      return;
    }
    if (r.mode() == SaleMode.CAS) {
      if (r.problems().isEmpty() && !r.stoppedEarly()) {
        out.println("OK: every item sold exactly once without a lock, each sale a compare-and-set; "
            + number(r.casConflicts()) + " lost races were retried.");
      }
      return;
    }
    if (r.oversold() > 0) {
      out.println("OVERSOLD by " + number(r.oversold()) + ": without the lock, buyers read the same count"
          + " and each wrote it back less one.");
      out.println("Run the demo without --no-lock to see the mutex prevent it.");
    } else {
      out.println("No oversell this time: the race depends on timing. Try more --buyers or a longer"
          + " --work-us.");
    }
  }

  private static void row(PrintWriter out, String label, String value) {
    out.printf("  %-24s %10s%n", label, value);
  }

  static String number(long value) {
    return String.format(Locale.US, "%,d", value);
  }

  private static String millis(long nanos) {
    return String.format(Locale.US, "%.1f ms", nanos / 1e6);
  }
}
