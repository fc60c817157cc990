package dev.baton.examples;

import dev.baton.Baton;
import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Scenario 1, the flash sale: several application nodes (one client each) sell a limited stock
 * under one mutex, and the stock row itself refuses a holder whose fencing token is older than the
 * last one it saw, so even a holder that stalled past its lease cannot oversell.
 *
 * <p>Run: {@code java dev.baton.examples.FlashSale [host:port]}.
 */
public final class FlashSale {
  /** What was sold, what is left and how many writes the fence refused. */
  public record Result(int stock, int sold, int left, int fencedOut) {}

  public static void main(String[] args) {
    DevServers.withZooKeeper(args, zk -> System.out.println(run(zk, 3, 4, 20)));
  }

  public static Result run(String connectString, int nodes, int buyersPerNode, int stock) {
    String url = "jdbc:h2:mem:flash-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1";
    try (Connection db = DriverManager.getConnection(url); Statement ddl = db.createStatement()) {
      ddl.execute("CREATE TABLE stock (id INT PRIMARY KEY, qty INT, fence BIGINT)");
      ddl.execute("INSERT INTO stock VALUES (1, " + stock + ", 0)");
      List<Baton> clients = new ArrayList<>();
      ExecutorService buyers = Executors.newFixedThreadPool(nodes * buyersPerNode);
      try {
        List<Future<int[]>> results = new ArrayList<>();
        for (int n = 0; n < nodes; n++) {
          Baton node = Baton.connect(connectString);
          clients.add(node);
          Mutex sku = node.mutex("/flash-sale/sku-1");
          for (int b = 0; b < buyersPerNode; b++) {
            results.add(buyers.submit(() -> buyUntilSoldOut(sku, url)));
          }
        }
        int sold = 0;
        int fenced = 0;
        for (Future<int[]> result : results) {
          int[] counts = result.get();
          sold += counts[0];
          fenced += counts[1];
        }
        return new Result(stock, sold, quantity(db), fenced);
      } finally {
        buyers.shutdownNow();
        clients.forEach(Baton::close);
      }
    } catch (Exception e) {
      throw new IllegalStateException("the flash sale failed", e);
    }
  }

  /** Buys one item at a time until the stock is gone: {sold, refused by the fence}. */
  private static int[] buyUntilSoldOut(Mutex sku, String url) throws SQLException {
    int sold = 0;
    int fenced = 0;
    try (Connection db = DriverManager.getConnection(url)) {
      while (true) {
        try (Lease lease = sku.acquire(Duration.ofSeconds(30))) {
          if (quantity(db) == 0) {
            return new int[] {sold, fenced};
          }
          // The SQL fence: no row changes for a holder older than the last writer.
          try (PreparedStatement sell = db.prepareStatement(
              "UPDATE stock SET qty = qty - 1, fence = ? WHERE id = 1 AND qty > 0 AND fence <= ?")) {
            sell.setLong(1, lease.fencingToken());
            sell.setLong(2, lease.fencingToken());
            if (sell.executeUpdate() == 1) {
              sold++;
            } else {
              fenced++;
            }
          }
        }
      }
    }
  }

  private static int quantity(Connection db) throws SQLException {
    try (Statement query = db.createStatement(); ResultSet row = query.executeQuery("SELECT qty FROM stock WHERE id = 1")) {
      row.next();
      return row.getInt(1);
    }
  }

  private FlashSale() {}
}
