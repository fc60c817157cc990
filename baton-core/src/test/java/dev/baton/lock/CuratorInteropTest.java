package dev.baton.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.FencingTokens;
import dev.baton.HelperZk;
import dev.baton.testkit.MutualExclusionChecker;
import dev.baton.testkit.TestCluster;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Baton's mutex and Curator's {@code InterProcessMutex} on the same lock path: one queue, one
 * order, exclusion and hand-over in both directions, and Baton's view of a Curator holder.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class CuratorInteropTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  private static TestCluster cluster;
  private static HelperZk raw;

  private final List<AutoCloseable> toClose = new ArrayList<>();
  private final ExecutorService threads = Executors.newCachedThreadPool();


  @BeforeAll
  static void startCluster() throws Exception {
    // Empty containers (lock paths) are removed within 100 ms instead of a minute, so the tests
    // see lock paths vanish and come back while clients queue on them.
    // Sessions of 10 s, so a busy 2-core machine never expires a session during a run.
    cluster = TestCluster.builder().standalone().emptyContainersCheckedEvery(Duration.ofMillis(100))
        .property("maxSessionTimeout", "20000").start();
    raw = HelperZk.connect(cluster.connectString());
  }

  @AfterAll
  static void stopCluster() throws Exception {
    if (raw != null) {
      raw.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @AfterEach
  void closeClients() throws Exception {
    threads.shutdownNow();
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  private Baton baton() {
    Baton baton = Baton.builder().connectString(cluster.connectString())
        .sessionTimeout(Duration.ofSeconds(10)).connectionTimeout(Duration.ofSeconds(10)).build();
    toClose.add(baton);
    return baton;
  }

  private CuratorFramework curator() throws InterruptedException {
    CuratorFramework curator = CuratorFrameworkFactory.newClient(
        cluster.connectString(), 10_000, 10_000, new ExponentialBackoffRetry(50, 5));
    toClose.add(curator);
    curator.start();
    assertThat(curator.blockUntilConnected(10, TimeUnit.SECONDS)).as("curator connected").isTrue();
    return curator;
  }

  private static void awaitChildren(String path, int count) {
    await().atMost(Duration.ofSeconds(10)).untilAsserted(
        () -> assertThat(raw.children(path)).as("children of " + path).hasSize(count));
  }

  private static String name(String nodePath) {
    return nodePath.substring(nodePath.lastIndexOf('/') + 1);
  }

  // ---- (a) Curator holds, Baton waits ---------------------------------------------------------

  @Test
  void tryAcquireZero_whileCuratorHolds_returnsEmptyAndLeavesOnlyCuratorNode() throws Exception {
    String path = "/interop/curator-holds-try";
    HelperCuratorMutex curatorMutex = new HelperCuratorMutex(curator(), path);
    assertThat(curatorMutex.acquire(10, TimeUnit.SECONDS)).isTrue();
    Mutex mutex = baton().mutex(path);

    assertThat(mutex.tryAcquire(Duration.ZERO)).isEmpty();
    assertThat(mutex.tryAcquire(Duration.ofMillis(100))).isEmpty();

    awaitChildren(path, 1);
    assertThat(raw.children(path)).containsExactly(name(curatorMutex.ownNodePath()));
    curatorMutex.release();
    awaitChildren(path, 0);
  }

  @Test
  void acquire_whileCuratorHolds_isGrantedOnlyAfterCuratorReleases() throws Exception {
    String path = "/interop/curator-to-baton";
    HelperCuratorMutex curatorMutex = new HelperCuratorMutex(curator(), path);
    assertThat(curatorMutex.acquire(10, TimeUnit.SECONDS)).isTrue();
    long curatorToken = curatorMutex.ownFencingToken();
    Mutex mutex = baton().mutex(path);
    AtomicBoolean curatorReleased = new AtomicBoolean();

    Future<long[]> batonWaiter = threads.submit(() -> {
      try (Lease lease = mutex.acquire(WAIT)) {
        // 1 if Curator had let go before Baton's grant, 0 if both held at once.
        return new long[] {curatorReleased.get() ? 1 : 0, lease.fencingToken()};
      }
    });
    awaitChildren(path, 2); // Baton's waiter is queued behind Curator's node
    assertThat(batonWaiter).isNotDone();
    assertThat(curatorMutex.getParticipantNodes()).hasSize(2).first()
        .isEqualTo(curatorMutex.ownNodePath());

    curatorReleased.set(true);
    curatorMutex.release();

    long[] result = batonWaiter.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(result[0]).as("Curator had released when Baton was granted").isEqualTo(1);
    assertThat(result[1]).as("Baton's fencing token").isGreaterThan(curatorToken);
    awaitChildren(path, 0);
  }

  // ---- (b) Baton holds, Curator waits ---------------------------------------------------------

  @Test
  void curatorAcquire_whileBatonHolds_timesOutThenSucceedsAfterBatonReleases() throws Exception {
    String path = "/interop/baton-to-curator";
    HelperCuratorMutex curatorMutex = new HelperCuratorMutex(curator(), path);
    Lease lease = baton().mutex(path).acquire(WAIT);

    assertThat(curatorMutex.acquire(100, TimeUnit.MILLISECONDS)).as("Curator while Baton holds").isFalse();
    awaitChildren(path, 1); // Curator removed its timed-out node; Baton's remains

    AtomicBoolean batonReleased = new AtomicBoolean();
    Future<long[]> curatorWaiter = threads.submit(() -> {
      if (!curatorMutex.acquire(WAIT.toSeconds(), TimeUnit.SECONDS)) {
        return new long[] {-1, 0};
      }
      try {
        return new long[] {batonReleased.get() ? 1 : 0, curatorMutex.ownFencingToken()};
      } finally {
        curatorMutex.release();
      }
    });
    awaitChildren(path, 2);
    assertThat(curatorWaiter).isNotDone();

    batonReleased.set(true);
    lease.close();

    long[] result = curatorWaiter.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(result[0]).as("1: Curator got it after Baton released; -1: Curator timed out")
        .isEqualTo(1);
    assertThat(FencingTokens.ofNode(result[1])).as("Curator node's token").isGreaterThan(lease.fencingToken());
    awaitChildren(path, 0);
  }

  // ---- (c) mixed contention -------------------------------------------------------------------

  @Test
  void mixedCuratorAndBatonClients_underContention_excludeEachOtherAndLeaveNoNodes() throws Exception {
    String path = "/interop/mixed";
    int threadsPerClient = 2;
    int cyclesPerThread = 40; // 2 Curator + 2 Baton clients x 2 threads x 40 = 320 sections
    MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
    int[] plainCounter = new int[1]; // read-increment-write without any Java synchronisation
    CountDownLatch start = new CountDownLatch(1);
    List<Callable<Void>> workers = new ArrayList<>();

    for (int c = 0; c < 2; c++) {
      HelperCuratorMutex shared = new HelperCuratorMutex(curator(), path);
      for (int t = 0; t < threadsPerClient; t++) {
        String who = "curator-" + c + "/t" + t;
        workers.add(() -> {
          start.await();
          for (int i = 0; i < cyclesPerThread; i++) {
            if (!shared.acquire(WAIT.toSeconds(), TimeUnit.SECONDS)) {
              throw new AssertionError(who + " did not get the lock within " + WAIT);
            }
            MutualExclusionChecker.Section section = checker.enter(who, shared.ownFencingToken());
            try {
              int seen = plainCounter[0];
              Thread.yield();
              plainCounter[0] = seen + 1;
            } finally {
              section.exit();
              shared.release();
            }
          }
          return null;
        });
      }
    }
    for (int b = 0; b < 2; b++) {
      Mutex shared = baton().mutex(path);
      for (int t = 0; t < threadsPerClient; t++) {
        String who = "baton-" + b + "/t" + t;
        workers.add(() -> {
          start.await();
          for (int i = 0; i < cyclesPerThread; i++) {
            try (Lease lease = shared.acquire(WAIT)) {
              MutualExclusionChecker.Section section = checker.enter(who, lease.fencingToken());
              try {
                int seen = plainCounter[0];
                Thread.yield();
                plainCounter[0] = seen + 1;
              } finally {
                section.exit();
              }
            }
          }
          return null;
        });
      }
    }

    List<Future<Void>> running = new ArrayList<>();
    for (Callable<Void> worker : workers) {
      running.add(threads.submit(worker));
    }
    start.countDown();
    for (Future<Void> f : running) {
      f.get(60, TimeUnit.SECONDS);
    }

    checker.assertNoViolations();
    Map<String, Long> byClient = checker.sectionsByClient();
    assertThat(byClient).as("sections per client thread").hasSize(8)
        .allSatisfy((who, count) -> assertThat(count).as(who).isEqualTo(cyclesPerThread));
    assertThat(plainCounter[0]).isEqualTo(8 * cyclesPerThread);
    awaitChildren(path, 0);
  }

  // ---- (d) Baton's view of a Curator holder ---------------------------------------------------

  @Test
  void holderAndWaiters_showCuratorHolderWithItsIpAsHost_andQueueInOrder() throws Exception {
    String path = "/interop/holder-view";
    CuratorFramework curator = curator();
    HelperCuratorMutex curatorMutex = new HelperCuratorMutex(curator, path);
    assertThat(curatorMutex.acquire(10, TimeUnit.SECONDS)).isTrue();
    String curatorNode = curatorMutex.ownNodePath();
    Stat stat = raw.zk().exists(curatorNode, false);
    String curatorData = new String(raw.data(curatorNode), StandardCharsets.UTF_8);
    Mutex mutex = baton().mutex(path);

    LockOwner holder = mutex.holder().orElseThrow();
    assertThat(curatorData).as("Curator's node data").isEqualTo(InetAddress.getLocalHost().getHostAddress());
    assertThat(holder.node()).isEqualTo(name(curatorNode));
    assertThat(holder.host()).isEqualTo(curatorData);
    assertThat(holder.pid()).isZero();
    assertThat(holder.thread()).isEmpty();
    assertThat(holder.fencingToken()).isEqualTo(FencingTokens.ofNode(stat.getCzxid()));
    assertThat(holder.sessionId()).isEqualTo(curator.getZookeeperClient().getZooKeeper().getSessionId());
    assertThat(holder.queuedAt()).isEqualTo(Instant.ofEpochMilli(stat.getCtime()));
    assertThat(mutex.waiters()).isEmpty();

    // A Baton waiter, then a Curator waiter of a second Curator client, queue behind it.
    CompletableFuture<Lease> batonWaiter = mutex.acquireAsync();
    awaitChildren(path, 2);
    HelperCuratorMutex otherCurator = new HelperCuratorMutex(curator(), path);
    Future<Boolean> curatorWaiter = threads.submit(() -> {
      boolean got = otherCurator.acquire(WAIT.toSeconds(), TimeUnit.SECONDS);
      if (got) {
        otherCurator.release();
      }
      return got;
    });
    awaitChildren(path, 3);

    List<LockOwner> waiters = mutex.waiters();
    assertThat(waiters).hasSize(2);
    assertThat(waiters.get(0).thread()).isEqualTo(Thread.currentThread().getName());
    assertThat(waiters.get(0).pid()).isEqualTo(ProcessHandle.current().pid());
    assertThat(waiters.get(1).host()).isEqualTo(curatorData);
    assertThat(waiters.get(1).pid()).isZero();
    assertThat(waiters.get(0).fencingToken()).isGreaterThan(holder.fencingToken());
    assertThat(waiters.get(1).fencingToken()).isGreaterThan(waiters.get(0).fencingToken());

    // Hand-over along the queue: Curator -> Baton -> Curator.
    curatorMutex.release();
    Lease lease = batonWaiter.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(mutex.holder().orElseThrow().node()).isEqualTo(waiters.get(0).node());
    assertThat(curatorWaiter).isNotDone();
    lease.close();
    assertThat(curatorWaiter.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    awaitChildren(path, 0);
    assertThat(mutex.holder()).isEmpty();
  }

  // ---- wire layout ----------------------------------------------------------------------------

  @Test
  void acquire_onFreshPath_createsProtectedEphemeralSequentialNodeUnderContainerPaths() throws Exception {
    String path = "/interop/layout/fresh";
    Baton baton = baton();
    try (Lease lease = baton.mutex(path).acquire(WAIT)) {
      List<String> children = raw.children(path);
      assertThat(children).singleElement().asString()
          .matches("_c_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-lock-\\d{10}");
      Stat node = raw.zk().exists(path + "/" + children.get(0), false);
      assertThat(node.getEphemeralOwner()).as("ephemeral, owned by the client's session")
          .isEqualTo(baton.sessionId());
      assertThat(FencingTokens.ofNode(node.getCzxid())).isEqualTo(lease.fencingToken());
    }
    // ZooKeeper shows clients no container flag (ephemeralOwner reads 0), so check what a
    // container does: the server removes it, and its container parents, once empty. A
    // persistent lock path would stay forever.
    await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
      assertThat(raw.exists(path)).as(path + " removed once empty").isFalse();
      assertThat(raw.exists("/interop/layout")).as("/interop/layout removed once empty").isFalse();
    });
    // And a lock path the server removed is created again on the next use.
    try (Lease again = baton.mutex(path).acquire(WAIT)) {
      assertThat(raw.children(path)).hasSize(1);
      assertThat(again.isValid()).isTrue();
    }
  }
}
