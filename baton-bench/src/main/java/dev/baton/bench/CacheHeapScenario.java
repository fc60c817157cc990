package dev.baton.bench;

import dev.baton.Baton;
import dev.baton.bench.lock.Role;
import dev.baton.cache.TreeCache;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * {@code cache-heap-10000}: the heap a subtree cache keeps per cached node. A tree of 10,000 nodes
 * (100 parents of 100 children, 64 bytes of data each, as config keys or instances carry) is
 * written once; each side then opens a client, measures the heap in use after a full collection,
 * starts its cache, waits until it is initialized, and measures again; the figure is the
 * difference divided by the node count. Baton's {@code TreeCache} ({@code baton.cache(path)})
 * beside Curator's {@code CuratorCache}. Lower is better, so the ratio is Curator / Baton.
 *
 * <p>The heap is read from {@link MemoryMXBean} after {@code System.gc()} until two readings
 * agree within 1%: a measure of retained objects, not of allocation. The client's own objects are
 * in both readings and cancel out; the cache's watch bookkeeping is in the difference.
 */
final class CacheHeapScenario implements Scenario {
  static final String NAME = "cache-heap-10000";
  private static final int PARENTS = 100;
  private static final int CHILDREN = 100;
  private static final int NODES = PARENTS * CHILDREN + PARENTS;
  private static final byte[] DATA = "x".repeat(64).getBytes(StandardCharsets.UTF_8);
  private static final Duration WAIT = Duration.ofSeconds(60);

  private enum Kind { BATON, CURATOR }

  private record Side(String id, String label, Role role, Kind kind) {}

  private static final List<Side> SIDES = List.of(
      new Side("baton", "Baton TreeCache (baton.cache)", Role.BATON, Kind.BATON),
      new Side("curator", "Curator CuratorCache", Role.CURATOR, Kind.CURATOR));

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public ScenarioResult run(BenchContext context) throws Exception {
    BenchOptions options = context.options();
    ScenarioResult result = new ScenarioResult(NAME, "bytes/node", false,
        "heap a subtree cache retains per node: 10,100 nodes of 64 bytes, after a full GC");
    List<Series> series = new ArrayList<>();
    for (Side side : SIDES) {
      series.add(result.add(new Series(side.label(), side.role(), options.rounds())));
    }
    String tree = context.freshPath(NAME, "tree", "shared");
    writeTree(context.connectString(), tree);
    RotatingRounds.run(context, NAME, SIDES, SIDES.stream().map(Side::id).toList(), series, "bytes/node",
        (side, round) -> measure(side, context.connectString(), tree));
    result.note("Heap in use after a full GC, with the cache initialized minus before it started, "
        + "divided by the " + NODES + " nodes; the data (64 bytes a node) is in both caches' figures.");
    return result;
  }

  /** Writes the tree once, pipelined; the sides only read it. */
  private static void writeTree(String connectString, String tree) throws Exception {
    ZooKeeper zk = dev.baton.bench.lock.RawLibrary.connectRaw(connectString);
    try {
      if (!zk.getChildren(tree, false).isEmpty()) {
        return;
      }
      AtomicInteger failures = new AtomicInteger();
      CountDownLatch done = new CountDownLatch(NODES);
      for (int p = 0; p < PARENTS; p++) {
        String parent = tree + "/p" + p;
        zk.create(parent, DATA, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT, (rc, path, ctx, name) -> {
          if (rc != 0) {
            failures.incrementAndGet();
          }
          done.countDown();
        }, null);
        for (int c = 0; c < CHILDREN; c++) {
          zk.create(parent + "/c" + c, DATA, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT, (rc, path, ctx, name) -> {
            if (rc != 0) {
              failures.incrementAndGet();
            }
            done.countDown();
          }, null);
        }
      }
      if (!done.await(WAIT.toSeconds(), TimeUnit.SECONDS) || failures.get() > 0) {
        throw new BenchFailure(NAME + ": writing the tree of " + NODES + " nodes failed (" + failures.get()
            + " creates refused)");
      }
    } finally {
      zk.close();
    }
  }

  private static double measure(Side side, String connectString, String tree) throws Exception {
    if (side.kind() == Kind.BATON) {
      try (Baton baton = Baton.builder().connectString(connectString).sessionTimeout(Duration.ofSeconds(30))
          .connectionTimeout(Duration.ofSeconds(15)).build()) {
        long before = settledHeap();
        try (TreeCache cache = baton.cache(tree).start()) {
          if (!cache.awaitInitialized(WAIT) || cache.size() < NODES) {
            throw new BenchFailure(NAME + ": Baton's cache held " + cache.size() + " of " + NODES + " nodes");
          }
          long after = settledHeap();
          return (after - before) / (double) NODES;
        }
      }
    }
    try (CuratorFramework curator = CuratorFrameworkFactory.newClient(connectString, 30_000, 15_000,
        new ExponentialBackoffRetry(100, 3))) {
      curator.start();
      curator.blockUntilConnected(15, TimeUnit.SECONDS);
      long before = settledHeap();
      CountDownLatch initialized = new CountDownLatch(1);
      try (CuratorCache cache = CuratorCache.build(curator, tree)) {
        cache.listenable().addListener(CuratorCacheListener.builder().forInitialized(initialized::countDown).build());
        cache.start();
        if (!initialized.await(WAIT.toSeconds(), TimeUnit.SECONDS) || cache.size() < NODES) {
          throw new BenchFailure(NAME + ": Curator's cache held " + cache.size() + " of " + NODES + " nodes");
        }
        long after = settledHeap();
        return (after - before) / (double) NODES;
      }
    }
  }

  /** Heap in use after collections, once two readings agree within 1% (at most ten tries). */
  private static long settledHeap() throws InterruptedException {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    long previous = Long.MAX_VALUE;
    for (int i = 0; i < 10; i++) {
      System.gc();
      Thread.sleep(50); // lets reference processing and the cleaner threads finish
      long used = memory.getHeapMemoryUsage().getUsed();
      if (Math.abs(used - previous) <= previous / 100) {
        return used;
      }
      previous = used;
    }
    return previous;
  }
}
