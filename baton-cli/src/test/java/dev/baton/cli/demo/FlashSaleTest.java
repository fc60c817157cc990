package dev.baton.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.cli.command.StandaloneZooKeeper;
import dev.baton.testkit.TestCluster;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class FlashSaleTest {
  static TestCluster cluster;

  @BeforeAll
  static void start() {
    cluster = StandaloneZooKeeper.startServer(); // the sale's clients ask 30 s: a 2 s session expires under load
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  private static FlashSale.Settings settings(int items, boolean locked) {
    return settings(items, locked ? SaleMode.LOCK : SaleMode.NO_LOCK);
  }

  private static FlashSale.Settings settings(int items, SaleMode mode) {
    return new FlashSale.Settings(2, 2, items, mode, Duration.ofNanos(250_000), Duration.ofSeconds(30));
  }

  @Test
  void withTheLockEveryItemIsSoldOnceInTokenOrder() {
    FlashSale sale = new FlashSale(settings(200, true), cluster.connectString());

    FlashSaleResult result = sale.run();

    assertThat(result.sold()).isEqualTo(200);
    assertThat(result.oversold()).isZero();
    assertThat(result.stockLeft()).isZero();
    assertThat(result.tokenViolation()).isEmpty();
    assertThat(result.staleWritesRejected()).isZero();
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
  void withCompareAndSetEveryItemIsSoldOnceWithoutALock() {
    FlashSale sale = new FlashSale(settings(200, SaleMode.CAS), cluster.connectString());

    FlashSaleResult result = sale.run();

    assertThat(result.sold()).isEqualTo(200);
    assertThat(result.oversold()).isZero();
    assertThat(result.stockLeft()).isZero();
    assertThat(result.acquisitions()).isZero();
    assertThat(result.casConflicts()).isNotNegative();
    assertThat(result.problems()).isEmpty();
    assertThat(result.salesPerNode().stream().mapToInt(Integer::intValue).sum()).isEqualTo(200);
    assertThat(result.acquireP99Nanos()).as("sale latency").isGreaterThanOrEqualTo(result.acquireP50Nanos()).isPositive();
  }

  /** The stock as a resource that checks fencing tokens: what a stale lock holder runs into. */
  @Test
  void stockWriteFenced_olderTokenIsRefused_sameOrNewerAccepted() {
    String path = FlashSale.ROOT + "/fence-test/stock";
    try (StockClient stock = StockClient.connect(cluster.connectString(), Duration.ofSeconds(10))) {
      stock.create(path, 10);
      StockClient.Stock staleRead = stock.readStock(path);

      assertThat(stock.writeFenced(path, 9, 100, stock.readStock(path))).isTrue();
      assertThat(stock.writeFenced(path, 9, 99, staleRead)).as("an older holder, writing late").isFalse();
      assertThat(stock.readStock(path)).extracting(StockClient.Stock::count, StockClient.Stock::fence)
          .containsExactly(9, 100L);
      assertThat(stock.writeFenced(path, 8, 100, staleRead)).as("the same holder again, after a re-read").isTrue();
      assertThat(stock.writeFenced(path, 7, 101, stock.readStock(path))).isTrue();
      assertThat(stock.read(path)).isEqualTo(7);
      stock.deleteTree(FlashSale.ROOT + "/fence-test");
    }
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
