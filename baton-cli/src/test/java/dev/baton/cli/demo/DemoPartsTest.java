package dev.baton.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.cli.command.CliException;
import java.util.List;
import org.junit.jupiter.api.Test;

class DemoPartsTest {

  @Test
  void ledgerAcceptsStrictlyIncreasingTokens() {
    SaleLedger ledger = new SaleLedger(3, true);
    ledger.sold(3, 10);
    ledger.sold(2, 11);
    ledger.sold(1, 40);
    assertThat(ledger.tokenOrderViolation()).isEmpty();
    assertThat(ledger.soldSoFar()).isEqualTo(3);
  }

  @Test
  void ledgerNamesTheSaleWhereTokensStopIncreasing() {
    SaleLedger ledger = new SaleLedger(3, true);
    ledger.sold(3, 10);
    ledger.sold(2, 10);
    ledger.sold(1, 12);
    assertThat(ledger.tokenOrderViolation()).hasValueSatisfying(v -> assertThat(v)
        .contains("sale 2", "token 10"));
  }

  @Test
  void ledgerKeepsTheFirstFailureAndStops() {
    SaleLedger ledger = new SaleLedger(1, false);
    ledger.fail(new CliException("first"));
    ledger.fail(new CliException("second"));
    assertThat(ledger.stopped()).isTrue();
    assertThat(ledger.failure()).hasValueSatisfying(e -> assertThat(e).hasMessage("first"));
  }

  @Test
  void percentilesByNearestRank() {
    Samples a = new Samples();
    Samples b = new Samples();
    for (int i = 1; i <= 600; i++) {
      (i % 2 == 0 ? a : b).add(i);
    }
    long[] sorted = Samples.sortedUnion(List.of(a, b));
    assertThat(sorted).hasSize(600).startsWith(1, 2, 3).endsWith(599, 600);
    assertThat(Samples.percentile(sorted, 50)).isEqualTo(300);
    assertThat(Samples.percentile(sorted, 99)).isEqualTo(594);
    assertThat(Samples.percentile(new long[0], 99)).isZero();
  }

  @Test
  void progressBarFillsInProportion() {
    assertThat(ProgressBar.render(0, 2000, 0, "locks/s"))
        .isEqualTo("[" + ".".repeat(40) + "]  0 / 2,000 sold  0 locks/s");
    assertThat(ProgressBar.render(1234, 2000, 812.4, "locks/s"))
        .isEqualTo("[" + "#".repeat(24) + ".".repeat(16) + "]  1,234 / 2,000 sold  812 locks/s");
    // Oversold without the lock: the bar stays full rather than overflowing.
    assertThat(ProgressBar.render(2500, 2000, 90, "sales/s")).startsWith("[" + "#".repeat(40) + "]");
  }
}
