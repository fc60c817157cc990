package dev.baton.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Outcomes a real run cannot be relied on to produce (an oversell, a broken lock), made up. */
class DemoReportTest {

  private static FlashSaleResult result(boolean locked, int sold, int left, Optional<String> tokens) {
    return result(locked ? SaleMode.LOCK : SaleMode.NO_LOCK, sold, left, tokens);
  }

  private static FlashSaleResult result(SaleMode mode, int sold, int left, Optional<String> tokens) {
    FlashSale.Settings settings = new FlashSale.Settings(2, 2, 100, mode, Duration.ZERO, Duration.ofSeconds(1));
    return new FlashSaleResult(settings, "/baton-demo/x/lock", sold, left, mode == SaleMode.LOCK ? sold + 4 : 0,
        mode == SaleMode.CAS ? 37 : 0, 0, Duration.ofSeconds(2), 1_500_000, 9_000_000,
        List.of(sold / 2, sold - sold / 2), tokens, false);
  }

  private static String print(FlashSaleResult result) {
    StringWriter out = new StringWriter();
    DemoReport.print(result, new PrintWriter(out));
    return out.toString();
  }

  @Test
  void anOversellWithoutTheLockIsExplained() {
    FlashSaleResult result = result(false, 130, 0, Optional.empty());

    assertThat(result.oversold()).isEqualTo(30);
    assertThat(result.problems()).as("no lock, no promise").isEmpty();
    assertThat(print(result))
        .containsPattern("oversold\\s+30\\n")
        .contains("OVERSOLD by 30", "without --no-lock");
  }

  @Test
  void aLockedRunThatOversoldIsAProblem() {
    FlashSaleResult result = result(true, 101, 0, Optional.empty());
    assertThat(result.problems()).anySatisfy(p -> assertThat(p).contains("1 items oversold"));
  }

  @Test
  void lostUpdatesAndTokensOutOfOrderAreProblems() {
    FlashSaleResult result = result(true, 100, 3, Optional.of("sale 7 was made under token 5"));

    assertThat(result.problems()).hasSize(2)
        .anySatisfy(p -> assertThat(p).contains("updates were lost"))
        .anySatisfy(p -> assertThat(p).contains("fencing tokens out of order"));
    assertThat(print(result)).contains("fencing tokens: NOT increasing: sale 7").doesNotContain("OK:");
  }

  @Test
  void aCorrectLockedRunPrintsTheTable() {
    FlashSaleResult result = result(true, 100, 0, Optional.empty());

    assertThat(result.problems()).isEmpty();
    assertThat(print(result))
        .containsPattern("acquisitions per second\\s+52\\n")
        .containsPattern("acquire latency p50\\s+1.5 ms\\n")
        .containsPattern("acquire latency p99\\s+9.0 ms\\n")
        .containsPattern("node-1\\s+50\\s+50.0%")
        .contains("fencing tokens: strictly increasing", "OK: every item sold exactly once")
        .contains("stale writes rejected by the stock's fence: 0\n");
  }

  @Test
  void aCorrectCompareAndSetRunPrintsConflictsAndSalesPerSecond() {
    FlashSaleResult result = result(SaleMode.CAS, 100, 0, Optional.empty());

    assertThat(result.problems()).isEmpty();
    assertThat(print(result))
        .containsPattern("lock acquisitions\\s+none \\(--mode cas\\)\n")
        .containsPattern("CAS conflicts \\(retries\\)\\s+37\n")
        .containsPattern("sales per second\\s+50\n")
        .containsPattern("sale latency p50\\s+1.5 ms\n")
        .contains("fencing tokens: none (--mode cas", "OK: every item sold exactly once without a lock")
        .doesNotContain("stale writes");
  }

  @Test
  void aCompareAndSetRunThatOversoldOrLostUpdatesIsAProblem() {
    assertThat(result(SaleMode.CAS, 101, 0, Optional.empty()).problems())
        .anySatisfy(p -> assertThat(p).contains("1 items oversold although every sale was a compare-and-set"));
    assertThat(result(SaleMode.CAS, 100, 2, Optional.empty()).problems())
        .anySatisfy(p -> assertThat(p).contains("updates were lost"));
  }
}
