package dev.baton.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.ClusterTestSupport;
import dev.baton.ConnectionState;
import dev.baton.leader.LeaderLatch;
import dev.baton.testkit.FaultProxy;
import dev.baton.testkit.MutualExclusionChecker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Many waiters of one client on one path, without a thread each: they all pass, once each and in
 * queue order, and they cost the server work linear in their number. The waiters of a session
 * share their listings of the lock's children, and learn from each other which nodes are gone,
 * where each used to list the children itself after its create and after most wake-ups (n
 * listings of up to n names each: O(n^2) names for the server to send and the client to sort).
 *
 * <p>Costs are read from the server's own counters: its getChildren response counter (Baton
 * lists with the parent's stat, so every listing passes through it), and the reads and bytes
 * read in the test's top-level namespace, which count every listing and every watch set.
 */
class ManyAsyncWaitersTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofMinutes(2);
  private static final String NAMESPACE = "many";

  /** The server's counters that matter here, at one instant. */
  private record Reads(long listings, long reads, long bytesRead) {
    static Reads now() {
      Map<String, String> metrics = cluster.metrics(0);
      return new Reads(
          number(metrics, "zk_response_packet_get_children_cache_hits")
              + number(metrics, "zk_response_packet_get_children_cache_misses"),
          number(metrics, "zk_cnt_" + NAMESPACE + "_read_per_namespace"),
          number(metrics, "zk_sum_" + NAMESPACE + "_read_per_namespace"));
    }

    Reads since(Reads before) {
      return new Reads(listings - before.listings, reads - before.reads, bytesRead - before.bytesRead);
    }

    private static long number(Map<String, String> metrics, String name) {
      String value = metrics.get(name);
      return value == null ? 0 : Long.parseLong(value);
    }
  }

  /** Waits until the server holds {@code count} watches: every queued waiter has set its watch. */
  private static void awaitWatches(long count) {
    await().atMost(WAIT).until(() -> Long.parseLong(cluster.metrics(0).get("zk_watch_count")) >= count);
  }

  @Test
  void fiveThousandAsyncWaiters_passOnceInQueueOrder_withAFewListings() throws Exception {
    int waiters = 5000;
    String path = "/" + NAMESPACE + "/mutex";
    Baton client = baton(cluster.connectString(), Duration.ofSeconds(30));
    Mutex mutex = client.mutex(path);
    Lease holder = mutex.acquire();
    MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
    checker.enter("holder", holder.fencingToken()).close();
    ConcurrentLinkedQueue<Integer> passedInOrder = new ConcurrentLinkedQueue<>();
    List<CompletableFuture<Void>> passed = new ArrayList<>(waiters);
    Reads before = Reads.now();

    for (int i = 0; i < waiters; i++) {
      int index = i;
      passed.add(mutex.acquireAsync().thenAccept(lease -> {
        try (lease; MutualExclusionChecker.Section section = checker.enter("waiter", lease.fencingToken())) {
          passedInOrder.add(index);
        }
      }));
    }
    awaitChildren(path, waiters + 1);
    // One node watched for each waiter: the holder's by the first three, the next one's by the rest.
    awaitWatches(waiters);
    holder.close();
    CompletableFuture.allOf(passed.toArray(new CompletableFuture<?>[0])).get(WAIT.toSeconds(), TimeUnit.SECONDS);

    checker.assertNoViolations();
    assertThat(checker.sectionCount()).isEqualTo(waiters + 1L);
    assertThat(new ArrayList<>(passedInOrder)).as("waiters in the order they were queued")
        .containsExactlyElementsOf(IntStream.range(0, waiters).boxed().toList());
    awaitChildren(path, 0);

    Reads cost = Reads.now().since(before);
    // Measured: about ten listings for 5,000 waiters. Each waiter listing on its own made 5,000
    // as they queued and nearly as many again at the hand-overs, and ran a 1 GB heap out.
    assertThat(cost.listings()).as("listings of " + path).isLessThanOrEqualTo(waiters / 100);
    // One watch set per waiter (three more for the first three), the listings, nothing more:
    // a hand-over deep in the queue lists nothing.
    assertThat(cost.reads()).as("reads in /" + NAMESPACE).isLessThanOrEqualTo(waiters + waiters / 100);
    // Linear, not quadratic: about 400 bytes a waiter here, where listing per waiter read about
    // 110 KB a waiter for 2,000 waiters, and more the more there are.
    assertThat(cost.bytesRead() / waiters).as("bytes read per waiter in /" + NAMESPACE).isLessThan(1_000);
  }

  /**
   * Readers queued behind a writer all enter when it leaves. Each is woken by the writer's
   * deletion and, but for the few nearest, must list again to see that no other writer is below
   * it: those listings, sent at once, are shared too.
   */
  @Test
  void manyReadersBehindAWriter_allEnterWhenItLeaves_withAFewListings() throws Exception {
    int readers = 1000;
    String path = "/" + NAMESPACE + "/readers";
    Baton client = baton(cluster.connectString(), Duration.ofSeconds(30));
    ReadWriteLock lock = client.readWriteLock(path);
    Lease writer = lock.writeLock().acquire();
    MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
    checker.enter("writer", writer.fencingToken()).close();
    List<CompletableFuture<Lease>> entered = new ArrayList<>(readers);
    Reads before = Reads.now();

    for (int i = 0; i < readers; i++) {
      entered.add(lock.readLock().acquireAsync());
    }
    awaitChildren(path, readers + 1);
    writer.close();
    List<Lease> leases = new ArrayList<>(readers);
    for (CompletableFuture<Lease> reader : entered) {
      leases.add(reader.get(WAIT.toSeconds(), TimeUnit.SECONDS));
    }
    // All hold at once, as readers may.
    assertThat(leases).allMatch(Lease::isValid);
    leases.forEach(lease -> checker.enterShared("reader", lease.fencingToken()).close());
    leases.forEach(Lease::close);
    awaitChildren(path, 0);

    checker.assertNoViolations();
    Reads cost = Reads.now().since(before);
    assertThat(cost.listings()).as("listings of " + path).isLessThanOrEqualTo(readers / 50);
    // At most one watch set per reader and the few listings, where each reader listing on its
    // own added a listing as it queued and another as it woke: three reads a reader.
    assertThat(cost.reads()).as("reads in /" + NAMESPACE).isLessThanOrEqualTo(readers + readers / 20);
  }

  @Test
  void manyReadersAndWritersOfOneClient_passOnce() throws Exception {
    int waiters = 800;
    String path = "/" + NAMESPACE + "/rwlock";
    Baton client = baton(cluster.connectString(), Duration.ofSeconds(30));
    ReadWriteLock lock = client.readWriteLock(path);
    Lease holder = lock.writeLock().acquire();
    MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
    checker.enter("holder", holder.fencingToken()).close();
    List<CompletableFuture<Void>> passed = new ArrayList<>(waiters);
    for (int i = 0; i < waiters; i++) {
      boolean writer = i % 4 == 0;
      passed.add((writer ? lock.writeLock() : lock.readLock()).acquireAsync().thenAccept(lease -> {
        try (lease; MutualExclusionChecker.Section section = writer
            ? checker.enter("writer", lease.fencingToken()) : checker.enterShared("reader", lease.fencingToken())) {
          Thread.onSpinWait();
        }
      }));
    }
    awaitChildren(path, waiters + 1);
    holder.close();
    CompletableFuture.allOf(passed.toArray(new CompletableFuture<?>[0])).get(WAIT.toSeconds(), TimeUnit.SECONDS);

    checker.assertNoViolations();
    assertThat(checker.sectionCount()).isEqualTo(waiters + 1L);
    awaitChildren(path, 0);
  }

  /**
   * The connection breaks after many waiters' creates reached the server but before any reply
   * came back. Each waiter must find its own node by its UUID in a listing sent after the break
   * (listings that the waiters share now) instead of creating a second one: one leaked node,
   * owned by the live session, would block every waiter behind it for good.
   */
  @Test
  void cutWhileManyCreateRepliesAreOnTheirWay_eachWaiterFindsItsOwnNode_andAllPassOnce() throws Exception {
    int waiters = 500;
    String path = "/" + NAMESPACE + "/cut";
    Baton holderClient = baton(cluster.connectString(), Duration.ofSeconds(30));
    Lease holder = holderClient.mutex(path).acquire();
    MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
    checker.enter("holder", holder.fencingToken()).close();
    FaultProxy proxy = closing(FaultProxy.start(cluster.address(0)));
    Baton client = baton(proxy.connectString(), Duration.ofSeconds(20));
    List<ConnectionState> states = new CopyOnWriteArrayList<>();
    client.addConnectionStateListener(states::add);
    Mutex mutex = client.mutex(path);
    long writesBefore = writes();

    proxy.delay(Duration.ofMillis(300));
    List<CompletableFuture<Void>> passed = new ArrayList<>(waiters);
    for (int i = 0; i < waiters; i++) {
      passed.add(mutex.acquireAsync().thenAccept(lease -> {
        try (lease; MutualExclusionChecker.Section section = checker.enter("waiter", lease.fencingToken())) {
          Thread.onSpinWait();
        }
      }));
    }
    awaitChildren(path, waiters + 1);
    proxy.cut(); // the replies are still in the proxy's delay line: they are dropped
    await().atMost(WAIT).until(() -> states.contains(ConnectionState.SUSPENDED));
    assertThat(passed).noneMatch(CompletableFuture::isDone);
    proxy.restore();
    await().atMost(WAIT).until(() -> states.contains(ConnectionState.RECONNECTED));
    holder.close();
    CompletableFuture.allOf(passed.toArray(new CompletableFuture<?>[0])).get(WAIT.toSeconds(), TimeUnit.SECONDS);

    checker.assertNoViolations();
    assertThat(checker.sectionCount()).isEqualTo(waiters + 1L);
    awaitChildren(path, 0);
    // Every waiter created one node and deleted it; the holder deleted its own. A second create
    // for any waiter would show here.
    assertThat(writes() - writesBefore).as("creates and deletes in /" + NAMESPACE).isEqualTo(2L * waiters + 1);
  }

  private static long writes() {
    return Long.parseLong(cluster.metrics(0).getOrDefault("zk_cnt_" + NAMESPACE + "_write_per_namespace", "0"));
  }

  @Test
  void manyAsyncAcquisitionsOfASemaphore_neverExceedItsPermits() throws Exception {
    int waiters = 400;
    int permits = 3;
    String path = "/" + NAMESPACE + "/semaphore";
    Baton client = baton(cluster.connectString(), Duration.ofSeconds(30));
    Semaphore semaphore = client.semaphore(path, permits);
    MutualExclusionChecker checker = MutualExclusionChecker.withCapacity(permits);
    List<Lease> held = new ArrayList<>();
    for (int i = 0; i < permits; i++) {
      held.add(semaphore.acquire());
    }
    List<CompletableFuture<Void>> passed = new ArrayList<>(waiters);
    for (int i = 0; i < waiters; i++) {
      passed.add(semaphore.acquireAsync().thenAccept(lease -> {
        try (lease; MutualExclusionChecker.Section section = checker.enter("waiter", lease.fencingToken())) {
          Thread.onSpinWait();
        }
      }));
    }
    // The first waiter holds the semaphore's lock and waits for a lease; the others queue behind it.
    awaitChildren(path + "/locks", waiters);
    held.forEach(Lease::close);
    CompletableFuture.allOf(passed.toArray(new CompletableFuture<?>[0])).get(WAIT.toSeconds(), TimeUnit.SECONDS);

    checker.assertNoViolations();
    assertThat(checker.sectionCount()).isEqualTo(waiters);
    awaitChildren(path + "/leases", 0);
    awaitChildren(path + "/locks", 0);
  }

  @Test
  void manyLatchesOfOneClient_leadOnceEach_inTheOrderTheyJoined() {
    int latches = 300;
    String path = "/" + NAMESPACE + "/latch";
    Baton client = baton(cluster.connectString(), Duration.ofSeconds(30));
    List<LeaderLatch> joined = new ArrayList<>(latches);
    for (int i = 0; i < latches; i++) {
      LeaderLatch latch = client.leaderLatch(path, "p" + i);
      latch.start();
      joined.add(latch);
      if (i == 0) {
        // The path exists from here on: no later create fails and joins again behind the others.
        assertThat(latch.await(WAIT)).isTrue();
      }
    }
    awaitChildren(path, latches);
    awaitWatches(latches - 1); // every follower watches: the leader's node and those of the others
    Reads before = Reads.now();
    for (int i = 0; i < latches; i++) {
      LeaderLatch leader = joined.get(i);
      assertThat(leader.await(WAIT)).as("p" + i + " leads").isTrue();
      for (int j = i + 1; j < Math.min(latches, i + 4); j++) {
        assertThat(joined.get(j).hasLeadership()).as("p" + j + " while p" + i + " leads").isFalse();
      }
      leader.close();
    }
    awaitChildren(path, 0);
    // A follower whose predecessor led with no one below it takes over without a listing or any
    // other read (when each follower listed again on waking, that was one listing a hand-over).
    Reads cost = Reads.now().since(before);
    assertThat(cost.listings()).as("listings of " + path + " at the hand-overs").isZero();
    assertThat(cost.reads()).as("reads in /" + NAMESPACE + " at the hand-overs").isLessThanOrEqualTo(latches / 30);
  }
}
