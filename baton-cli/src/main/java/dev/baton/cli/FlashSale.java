package dev.baton.cli;

import dev.baton.Baton;
import dev.baton.atomic.Counter;
import dev.baton.lock.Mutex;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;

/**
 * The flash-sale simulation: {@code nodes} application nodes, each a {@link Baton} client with a
 * session of its own and {@code buyersPerNode} buyer threads, sell {@code items} items counted
 * in one ZooKeeper node. Every run works under a fresh {@code /baton-demo/<run-id>} and deletes
 * it when done. Prints nothing; {@link #run()} returns what happened.
 */
final class FlashSale {
  static final String ROOT = "/baton-demo";
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(15);

  /**
   * What to simulate.
   *
   * @param nodes application nodes, each with its own ZooKeeper session
   * @param buyersPerNode buyer threads per node
   * @param items the stock at the start
   * @param mode how buyers keep apart: the mutex, a compare-and-set, or nothing
   * @param work the pause between reading and writing the stock
   * @param acquireTimeout how long a buyer waits for the mutex before the run fails
   */
  record Settings(int nodes, int buyersPerNode, int items, SaleMode mode, Duration work,
      Duration acquireTimeout) {
    Settings {
      java.util.Objects.requireNonNull(mode, "mode");
      positive(nodes, "nodes");
      positive(buyersPerNode, "buyersPerNode");
      positive(items, "items");
      if (work.isNegative()) {
        throw new IllegalArgumentException("work must not be negative, was " + work);
      }
      if (acquireTimeout.isNegative() || acquireTimeout.isZero()) {
        throw new IllegalArgumentException("acquireTimeout must be positive, was " + acquireTimeout);
      }
    }

    /** Whether buyers take the mutex. */
    boolean locked() {
      return mode == SaleMode.LOCK;
    }

    private static void positive(int value, String name) {
      if (value < 1) {
        throw new IllegalArgumentException(name + " must be positive, was " + value);
      }
    }
  }

  private final Settings settings;
  private final String connectString;
  private final Duration connectTimeout;
  private final String runPath;
  private final SaleLedger ledger;
  private volatile boolean stoppedEarly;

  FlashSale(Settings settings, String connectString) {
    this(settings, connectString, CONNECT_TIMEOUT);
  }

  /** {@code connectTimeout}: how long each session waits for a server to answer. */
  FlashSale(Settings settings, String connectString, Duration connectTimeout) {
    this.settings = settings;
    this.connectString = connectString;
    this.connectTimeout = connectTimeout;
    this.runPath = ROOT + "/" + UUID.randomUUID().toString().substring(0, 8);
    this.ledger = new SaleLedger(settings.items(), settings.locked());
  }

  String lockPath() {
    return runPath + "/lock";
  }

  String stockPath() {
    return runPath + "/stock";
  }

  /** Sales so far; safe to call from any thread while the run goes on. */
  int soldSoFar() {
    return ledger.soldSoFar();
  }

  /** Mutex acquisitions so far; safe to call from any thread. */
  long acquisitionsSoFar() {
    return ledger.acquisitionsSoFar();
  }

  /** Asks the buyers to stop after their current sale (Ctrl-C); {@link #run()} then returns. */
  void stop() {
    stoppedEarly = true;
    ledger.stop();
  }

  /**
   * Runs the sale to the end of the stock and cleans up its nodes and sessions.
   *
   * @throws CliException if the ensemble cannot be reached or a buyer fails
   */
  FlashSaleResult run() {
    try (StockClient admin = StockClient.connect(connectString, connectTimeout)) {
      admin.create(stockPath(), settings.items());
      List<Node> nodes = new ArrayList<>();
      try {
        for (int n = 1; n <= settings.nodes(); n++) {
          nodes.add(Node.open(connectString, connectTimeout, settings.locked() ? lockPath() : null));
        }
        List<List<Buyer>> buyersByNode = buyers(nodes);
        long elapsedNanos = runToEnd(buyersByNode);
        ledger.failure().ifPresent(e -> {
          throw e;
        });
        return result(buyersByNode, admin.read(stockPath()), elapsedNanos);
      } finally {
        // Sessions first: their lock nodes go with them, so the tree below can be deleted.
        nodes.forEach(Node::close);
        admin.deleteTree(runPath);
      }
    }
  }

  private List<List<Buyer>> buyers(List<Node> nodes) {
    List<List<Buyer>> buyersByNode = new ArrayList<>();
    for (int n = 0; n < nodes.size(); n++) {
      List<Buyer> buyers = new ArrayList<>();
      for (int b = 1; b <= settings.buyersPerNode(); b++) {
        // The name is what 'baton lock waiters' shows for this buyer's place in the queue.
        String name = "node-" + (n + 1) + "-buyer-" + b;
        Counter counter = settings.mode() == SaleMode.CAS ? nodes.get(n).baton().counter(stockPath()) : null;
        buyers.add(new Buyer(name, settings, nodes.get(n).mutex(), counter, nodes.get(n).stock(),
            stockPath(), ledger));
      }
      buyersByNode.add(buyers);
    }
    return buyersByNode;
  }

  /** Starts every buyer at once and returns the nanoseconds until the last one finished. */
  private long runToEnd(List<List<Buyer>> buyersByNode) {
    CountDownLatch gate = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    for (List<Buyer> buyers : buyersByNode) {
      for (Buyer buyer : buyers) {
        Thread thread = new Thread(() -> {
          try {
            gate.await();
            buyer.run();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }, buyer.name());
        thread.setDaemon(true);
        thread.start();
        threads.add(thread);
      }
    }
    long start = System.nanoTime();
    gate.countDown();
    try {
      for (Thread thread : threads) {
        thread.join();
      }
    } catch (InterruptedException e) {
      stop();
      Thread.currentThread().interrupt();
      throw new CliException("Interrupted while the buyers were running", e);
    }
    return System.nanoTime() - start;
  }

  private FlashSaleResult result(List<List<Buyer>> buyersByNode, int stockLeft, long elapsedNanos) {
    List<Integer> salesPerNode = new ArrayList<>();
    List<Samples> latencies = new ArrayList<>();
    int sold = 0;
    for (List<Buyer> buyers : buyersByNode) {
      int nodeSales = 0;
      for (Buyer buyer : buyers) {
        nodeSales += buyer.sales();
        latencies.add(buyer.acquireNanos());
      }
      salesPerNode.add(nodeSales);
      sold += nodeSales;
    }
    long[] sorted = Samples.sortedUnion(latencies);
    return new FlashSaleResult(settings, lockPath(), sold, stockLeft, ledger.acquisitionsSoFar(),
        ledger.casConflicts(), ledger.staleWritesRejected(), Duration.ofNanos(elapsedNanos), Samples.percentile(sorted, 50), Samples.percentile(sorted, 99),
        salesPerNode, settings.locked() ? ledger.tokenOrderViolation() : Optional.empty(),
        stoppedEarly);
  }

  /** One application node: its own Baton session for the lock, its own session for the stock. */
  private record Node(Baton baton, Mutex mutex, StockClient stock) {
    static Node open(String connectString, Duration connectTimeout, String lockPathOrNull) {
      Baton baton = Baton.builder().connectString(connectString).connectionTimeout(connectTimeout).build();
      try {
        Mutex mutex = lockPathOrNull == null ? null : baton.mutex(lockPathOrNull);
        return new Node(baton, mutex, StockClient.connect(connectString, connectTimeout));
      } catch (RuntimeException e) {
        baton.close();
        throw e;
      }
    }

    void close() {
      baton.close();
      stock.close();
    }
  }
}
