package dev.baton.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.HelperZk;
import dev.baton.testkit.MutualExclusionChecker;
import dev.baton.testkit.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** All-or-nothing acquisition of several mutexes, in a global order. */
class MultiLockTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static TestCluster cluster;
  private static Baton first;
  private static Baton second;

  @BeforeAll
  static void start() {
    cluster = TestCluster.standalone();
    first = Baton.connect(cluster.connectString());
    second = Baton.connect(cluster.connectString());
  }

  @AfterAll
  static void stop() {
    first.close();
    second.close();
    cluster.close();
  }

  private static List<String> children(String path) throws Exception {
    return HelperZk.childrenOf(cluster.connectString(), path);
  }

  @Test
  void acquire_holdsEveryLock_andCloseReleasesThemAll() throws Exception {
    MultiLock multi = first.multiLock(first.mutex("/multi/all/b"), first.mutex("/multi/all/a"));
    assertThat(multi.locks()).extracting(Mutex::path).containsExactly("/multi/all/a", "/multi/all/b");
    MultiLock.MultiLease lease = multi.acquire(WAIT);
    assertThat(lease.parts()).hasSize(2);
    assertThat(lease.isValid()).isTrue();
    assertThat(lease.fencingToken()).isEqualTo(
        Math.max(lease.parts().get(0).fencingToken(), lease.parts().get(1).fencingToken()));
    assertThat(second.mutex("/multi/all/a").tryAcquire(Duration.ZERO)).isEmpty();
    assertThat(second.mutex("/multi/all/b").tryAcquire(Duration.ZERO)).isEmpty();

    lease.close();
    lease.close();
    assertThat(lease.state()).isEqualTo(LeaseState.RELEASED);
    try (Lease a = second.mutex("/multi/all/a").acquire(WAIT);
        Lease b = second.mutex("/multi/all/b").acquire(WAIT)) {
      assertThat(a.isValid() && b.isValid()).isTrue();
    }
  }

  /**
   * Issue 31, defect 6. E over {b, c} queues on b behind a plain holder; L over {a, b} takes a and
   * queues on b behind E; E gets b, then takes c with a node newer than L's on b. When L gets b
   * after E, b's token still grows (the resource guarding b accepts L), though L's largest token
   * may be below E's.
   */
  @Test
  void overlappingMultiLocks_eachLocksTokenGrowsFromHolderToHolder() throws Exception {
    Mutex a = first.mutex("/multi/overlap/a");
    Mutex b = first.mutex("/multi/overlap/b");
    Mutex c = first.mutex("/multi/overlap/c");
    FencedResource<List<String>> guardedByB = new FencedResource<>("b's resource", new ArrayList<>());
    Lease plain = second.mutex("/multi/overlap/b").acquire(WAIT);
    guardedByB.write(plain.fencingToken(), writes -> writes.add("plain"));
    CompletableFuture<MultiLock.MultiLease> e = second.multiLock(second.mutex("/multi/overlap/b"),
        second.mutex("/multi/overlap/c")).acquireAsync(WAIT);
    await().atMost(WAIT).until(() -> children("/multi/overlap/b").size() == 2);
    CompletableFuture<MultiLock.MultiLease> l = first.multiLock(a, b).acquireAsync(WAIT);
    await().atMost(WAIT).until(() -> children("/multi/overlap/b").size() == 3);

    plain.close();
    MultiLock.MultiLease eLease = e.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    guardedByB.write(eLease.fencingToken(b), writes -> writes.add("E"));
    assertThat(eLease.fencingToken(c)).as("E's token on c, taken after L queued on b")
        .isEqualTo(eLease.part(c).fencingToken()).isEqualTo(eLease.fencingToken());
    eLease.close();
    MultiLock.MultiLease lLease = l.get(WAIT.toSeconds(), TimeUnit.SECONDS);

    assertThat(lLease.fencingToken(b)).as("b's token from E to L").isGreaterThan(eLease.fencingToken(b));
    guardedByB.write(lLease.fencingToken(b), writes -> writes.add("L"));
    List<String> accepted = guardedByB.read(List::copyOf);
    assertThat(accepted).containsExactly("plain", "E", "L");
    assertThat(lLease.part(a).path()).isEqualTo("/multi/overlap/a");
    assertThatThrownBy(() -> lLease.fencingToken(c)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("/multi/overlap/c");
    lLease.close();
  }

  @Test
  void acquire_timesOutOnOneLock_releasesWhatItTookAndNamesThatLock() throws Exception {
    try (Lease blocker = second.mutex("/multi/timeout/b").acquire(WAIT)) {
      MultiLock multi = first.multiLock(first.mutex("/multi/timeout/a"), first.mutex("/multi/timeout/b"));
      assertThatThrownBy(() -> multi.acquire(Duration.ofMillis(300)))
          .isInstanceOf(AcquireTimeoutException.class)
          .hasMessageContaining("/multi/timeout/b");
      assertThat(multi.tryAcquire(Duration.ofMillis(100))).isEmpty();
      // "a" was taken and given back: another client gets it at once.
      try (Lease a = second.mutex("/multi/timeout/a").acquire(Duration.ofSeconds(5))) {
        assertThat(a.isValid()).isTrue();
      }
      await().atMost(WAIT).until(() -> children("/multi/timeout/b").size() == 1);
    }
  }

  /**
   * Two clients take the same two locks named in opposite orders, over and over. Taken in the
   * order given, each would soon hold one and wait for the other forever; the global order makes
   * them queue on the same first lock instead.
   */
  @Test
  void overlappingMultiLocks_listedInOppositeOrders_neverDeadlock() throws Exception {
    MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
    MultiLock one = first.multiLock(first.mutex("/multi/x"), first.mutex("/multi/y"));
    MultiLock two = second.multiLock(second.mutex("/multi/y"), second.mutex("/multi/x"));
    ExecutorService threads = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> runs = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        MultiLock multi = t % 2 == 0 ? one : two;
        String name = (t % 2 == 0 ? "first-" : "second-") + t;
        runs.add(threads.submit(() -> {
          for (int i = 0; i < 50; i++) {
            try (MultiLock.MultiLease lease = multi.acquire(WAIT)) {
              checker.enter(name, lease.fencingToken()).exit();
            }
          }
        }));
      }
      for (Future<?> run : runs) {
        run.get(60, TimeUnit.SECONDS);
      }
    } finally {
      threads.shutdownNow();
    }
    checker.assertNoViolations();
    assertThat(checker.sectionCount()).isEqualTo(200);
  }

  @Test
  void acquireAsync_holdsAll_andACancelledOneKeepsNothing() throws Exception {
    MultiLock multi = first.multiLock(first.mutex("/multi/async/a"), first.mutex("/multi/async/b"));
    try (MultiLock.MultiLease lease = multi.acquireAsync(WAIT).get(20, TimeUnit.SECONDS)) {
      assertThat(lease.isValid()).isTrue();
      CompletableFuture<MultiLock.MultiLease> waiting =
          second.multiLock(second.mutex("/multi/async/a"), second.mutex("/multi/async/b")).acquireAsync(WAIT);
      waiting.cancel(true);
    }
    await().atMost(WAIT).until(() -> children("/multi/async/a").isEmpty() && children("/multi/async/b").isEmpty());
  }

  /**
   * Parts are released last taken first, so the two foreign parts (paths "m" and "z", after "a")
   * fail before the Baton part is reached: a close that stopped at the first failure would leave
   * "a" held until the session ends.
   */
  @Test
  void close_partReleasesThrow_releasesEveryPartThenReportsTheFirstFailure() throws Exception {
    ReleaseFailingMutex middle = new ReleaseFailingMutex("/multi/throw/m");
    ReleaseFailingMutex last = new ReleaseFailingMutex("/multi/throw/z");
    MultiLock.MultiLease lease =
        first.multiLock(last, first.mutex("/multi/throw/a"), middle).acquire(WAIT);

    assertThatThrownBy(lease::close)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("/multi/throw/z")
        .satisfies(e -> assertThat(e.getSuppressed()).singleElement()
            .satisfies(s -> assertThat(s).hasMessageContaining("/multi/throw/m")));
    assertThat(lease.state()).isEqualTo(LeaseState.RELEASED);
    try (Lease a = second.mutex("/multi/throw/a").acquire(Duration.ofSeconds(5))) {
      assertThat(a.isValid()).isTrue();
    }

    lease.close();
    assertThat(middle.releaseAttempts()).isEqualTo(1);
    assertThat(last.releaseAttempts()).isEqualTo(1);
  }

  @Test
  void acquire_timesOutAndAPartReleaseThrows_timeoutCarriesTheReleaseFailure() throws Exception {
    ReleaseFailingMutex foreign = new ReleaseFailingMutex("/multi/throwtimeout/a");
    try (Lease blocker = second.mutex("/multi/throwtimeout/b").acquire(WAIT)) {
      MultiLock multi = first.multiLock(foreign, first.mutex("/multi/throwtimeout/b"));
      assertThatThrownBy(() -> multi.acquire(Duration.ofMillis(300)))
          .isInstanceOf(AcquireTimeoutException.class)
          .satisfies(e -> assertThat(e.getSuppressed()).singleElement()
              .satisfies(s -> assertThat(s).hasMessageContaining("/multi/throwtimeout/a")));
      assertThat(foreign.releaseAttempts()).isEqualTo(1);
    }
  }

  @Test
  void multiLock_badInput_isRejectedNamingTheProblem() {
    assertThatThrownBy(() -> first.multiLock())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least one lock");
    assertThatThrownBy(() -> first.multiLock(first.mutex("/multi/dup"), second.mutex("/multi/dup")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("/multi/dup").hasMessageContaining("twice");
    assertThatThrownBy(() -> first.multiLock(first.mutex("/multi/n"), null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("null");
    MultiLock multi = first.multiLock(first.mutex("/multi/bad"));
    assertThatThrownBy(() -> multi.acquire(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout");
    assertThatThrownBy(() -> multi.acquire(null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("timeout");
  }
}
