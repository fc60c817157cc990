package dev.baton.cli.demo;

import dev.baton.atomic.Counter;
import dev.baton.cli.command.CliException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;

/**
 * The flash-sale simulation: {@code nodes} application nodes, each a lock client with a session
 * (or connection) of its own and {@code buyersPerNode} buyer threads, sell {@code items} items
 * counted in one ZooKeeper node, Redis key or PostgreSQL row ({@link DemoBackend}). Every run works
 * under a fresh root ({@code /baton-demo/<run-id>}, {@code baton-demo:<run-id>}, {@code
 * baton-demo/<run-id>}) and deletes it when done.
 * Prints nothing; {@link #run()} returns what happened.
 */
public final class FlashSale {
  static final String ROOT = DemoBackend.ZooKeeper.ROOT;
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
  private final DemoBackend backend;
  private final String runPath;
  private final SaleLedger ledger;
  private volatile boolean stoppedEarly;

  /** On the ZooKeeper ensemble at {@code connectString}. */
  FlashSale(Settings settings, String connectString) {
    this(settings, new DemoBackend.ZooKeeper(connectString, CONNECT_TIMEOUT));
  }

  FlashSale(Settings settings, DemoBackend backend) {
    this.settings = settings;
    this.backend = backend;
    this.runPath = backend.runRoot(UUID.randomUUID().toString().substring(0, 8));
    this.ledger = new SaleLedger(settings.items(), settings.locked());
  }

  DemoBackend backend() {
    return backend;
  }

  String lockPath() {
    return backend.child(runPath, "lock");
  }

  String stockPath() {
    return backend.child(runPath, "stock");
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
    try (StockStore admin = backend.openStock()) {
      admin.create(stockPath(), settings.items());
      List<DemoBackend.DemoNode> nodes = new ArrayList<>();
      try {
        for (int n = 1; n <= settings.nodes(); n++) {
          nodes.add(backend.openNode(settings.locked() ? lockPath() : null));
        }
        List<List<Buyer>> buyersByNode = buyers(nodes);
        long elapsedNanos = runToEnd(buyersByNode);
        ledger.failure().ifPresent(e -> {
          throw e;
        });
        return result(buyersByNode, admin.read(stockPath()), elapsedNanos);
      } finally {
        // Sessions first: their lock nodes go with them, so the tree below can be deleted.
        nodes.forEach(DemoBackend.DemoNode::close);
        admin.deleteTree(runPath);
      }
    }
  }

  private List<List<Buyer>> buyers(List<DemoBackend.DemoNode> nodes) {
    List<List<Buyer>> buyersByNode = new ArrayList<>();
    for (int n = 0; n < nodes.size(); n++) {
      List<Buyer> buyers = new ArrayList<>();
      for (int b = 1; b <= settings.buyersPerNode(); b++) {
        // The name is what 'baton lock waiters' shows for this buyer's place in the queue.
        String name = "node-" + (n + 1) + "-buyer-" + b;
        Counter counter = settings.mode() == SaleMode.CAS ? nodes.get(n).counter(stockPath()) : null;
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
}
