package dev.baton.cli.demo;

import dev.baton.cli.command.CliException;
import dev.baton.cli.command.DurationConverter;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.Mutex;
import dev.baton.testkit.FaultProxy;
import java.time.Duration;
import java.time.Instant;

/**
 * The first failure case of {@code baton demo --compare}: holder A reads the stock, checks that
 * its lease is valid, and then stalls (a long GC pause: nothing of it reaches the server) for
 * longer than its lease. B asks for the lock meanwhile. A wakes and writes what it computed
 * before the stall, without looking again, as a paused thread would.
 *
 * <p>The stall is A's connection silenced by a {@link FaultProxy} (bytes dropped both ways, the
 * socket left open), which is what the server sees of a paused process. A's own client keeps
 * running here, so it can say when it learned that its lease was gone; a paused process would
 * learn it only on waking, which does not change what the server does or what the fence refuses.
 */
public final class StalledHolderCase {
  static final String SCENARIO = "holder stalls past its lease";
  private static final Duration ACQUIRE_TIMEOUT = Duration.ofSeconds(30);

  private StalledHolderCase() {}

  /**
   * Runs the case once. {@code stalled} reaches the server through {@code proxy} only; {@code
   * other} and {@code stock} directly.
   */
  /**
   * Whether {@code earlier}, neither released nor given up, was still within its lease when
   * another holder was granted the same lock at {@code granted}: two leases at once. A lease whose
   * client already said SUSPECT still counts: it had not run out, and its holder may be writing.
   */
  static boolean overlaps(Lease earlier, Instant granted) {
    return earlier.state() != LeaseState.RELEASED && earlier.state() != LeaseState.LOST
        && earlier.validUntil().isAfter(granted);
  }

  static ComparisonRow run(String backend, Mutex stalled, Mutex other, FaultProxy proxy,
      StockStore stock, String stockKey) {
    stock.create(stockKey, 10);
    Lease a = stalled.acquire(ACQUIRE_TIMEOUT);
    StockStore.Stock seenByA = stock.readStock(stockKey);
    if (!a.isValid()) {
      throw new CliException(backend + ": A's lease was not valid right after acquiring it (" + a.state() + ")");
    }
    proxy.blackhole(); // A stalls here, between its check and its write
    long waitStart = System.nanoTime();
    Lease b = other.acquire(ACQUIRE_TIMEOUT);
    Duration waited = Duration.ofNanos(System.nanoTime() - waitStart);
    long overlaps = overlaps(a, Instant.now()) ? 1 : 0;
    String aStateWhenBEntered = a.state().toString();
    StockStore.Stock seenByB = stock.readStock(stockKey);
    boolean bSold = stock.writeFenced(stockKey, seenByB.count() - 1, b.fencingToken(), seenByB);
    b.close();

    proxy.restore(); // A wakes up and writes what it computed before the stall
    boolean aWrote = stock.writeFenced(stockKey, seenByA.count() - 1, a.fencingToken(), seenByA);
    a.close();
    int left = stock.read(stockKey);
    String note = String.format("B got the lock %s after A stalled (A's lease then %s); A's late write %s; stock %d",
        DurationConverter.seconds(waited), aStateWhenBEntered,
        aWrote ? "LANDED, undoing B's sale" : "refused by the fence", left);
    if (!bSold) {
      note += "; B's own write was refused (unexpected)";
    }
    return ComparisonRow.failureCase(SCENARIO, backend, overlaps, aWrote ? 0 : 1, note);
  }
}
