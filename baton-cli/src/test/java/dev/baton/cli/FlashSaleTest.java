package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testkit.TestCluster;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class FlashSaleTest {
  static TestCluster cluster;

  @BeforeAll
  static void start() {
    cluster = TestCluster.standalone();
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  private static FlashSale.Settings settings(int items, boolean locked) {
    return new FlashSale.Settings(2, 2, items, locked, Duration.ofNanos(250_000), Duration.ofSeconds(30));
  }

  @Test
  void withTheLockEveryItemIsSoldOnceInTokenOrder() {
    FlashSale sale = new FlashSale(settings(200, true), cluster.connectString());

    FlashSaleResult result = sale.run();

    assertThat(result.sold()).isEqualTo(200);
    assertThat(result.oversold()).isZero();
    assertThat(result.stockLeft()).isZero();
    assertThat(result.tokenViolation()).isEmpty();
    assertThat(result.problems()).isEmpty();
    // Every buyer's last acquisition finds the stock empty.
    assertThat(result.acquisitions()).isEqualTo(200 + 4);
    assertThat(result.salesPerNode()).hasSize(2).allSatisfy(n -> assertThat(n).isPositive());
    assertThat(result.salesPerNode().stream().mapToInt(Integer::intValue).sum()).isEqualTo(200);
    assertThat(result.acquireP99Nanos()).isGreaterThanOrEqualTo(result.acquireP50Nanos()).isPositive();
    assertThat(sale.soldSoFar()).isEqualTo(200);
  }

  @Test
  void withoutTheLockTheRunStillEndsAndReports() {
    // Whether it oversells is a race; only what must hold either way is checked.
    FlashSaleResult result = new FlashSale(settings(100, false), cluster.connectString()).run();

    assertThat(result.sold()).isGreaterThanOrEqualTo(100);
    assertThat(result.oversold()).isEqualTo(result.sold() - 100);
    assertThat(result.stockLeft()).isZero();
    assertThat(result.acquisitions()).isZero();
    assertThat(result.tokenViolation()).isEmpty();
    assertThat(result.problems()).isEmpty();
  }

  @Test
  void theRunDeletesItsNodes() {
    FlashSale sale = new FlashSale(settings(20, true), cluster.connectString());
    sale.run();

    try (StockClient zk = StockClient.connect(cluster.connectString(), Duration.ofSeconds(10))) {
      assertThat(zk.exists(FlashSale.ROOT)).isFalse();
    }
  }
}
