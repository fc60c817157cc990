package dev.baton.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.ClusterTestSupport;
import dev.baton.testkit.FaultProxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Lock-delay ({@link MutexOptions#withLockDelay}): a holder lost without releasing keeps the lock
 * from the next holder for the delay; a holder that releases does not. The delays here are either
 * an hour (so being held back is seen as "not granted", never as a measured time) or short.
 */
class LockDelayTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final MutexOptions HOUR = MutexOptions.defaults().withLockDelay(Duration.ofHours(1));

  @Test
  void releasedHolder_nextHolderIsNotDelayed() throws Exception {
    String path = "/delay/released";
    Lease first = baton().mutex(path, HOUR).acquire(WAIT);
    CompletableFuture<Lease> waiting = baton().mutex(path, HOUR).acquireAsync();
    awaitChildren(path, 2);
    first.close();
    Lease second = waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
    second.close();
    awaitChildren(path, 0);
  }

  @Test
  void lostHolder_keepsTheNextHolderOutForTheDelay() throws Exception {
    String path = "/delay/lost-long";
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0))) {
      Lease lost = baton(proxy.connectString(), Duration.ofSeconds(1)).mutex(path, HOUR).acquire(WAIT);
      CompletableFuture<Lease> waiting = baton().mutex(path, HOUR).acquireAsync();
      awaitChildren(path, 2);
      String waiterNode = raw.children(path).stream()
          .max((a, b) -> a.substring(a.lastIndexOf('-')).compareTo(b.substring(b.lastIndexOf('-')))).orElseThrow();

      proxy.blackhole(); // the holder's session expires; the server deletes its node
      await().atMost(WAIT).until(() -> record(path).equals("held:" + waiterNode));
      assertThat(raw.children(path)).containsExactly(waiterNode);
      assertThat(lost.isValid()).isFalse();
      assertThat(waiting).as("held back by the lock-delay").isNotDone();

      waiting.cancel(true);
      awaitChildren(path, 0);
    }
  }

  /**
   * The holder is lost; the next holder's claim (its read of the record and its own record) is
   * applied but the reply is lost with its connection. The retry reads the claim's own record,
   * which no longer tells who held before: that is "unknown", so the grant is held back.
   */
  @Test
  void lostHolder_claimReplyLost_nextHolderIsStillHeldBack() throws Exception {
    String path = "/delay/lost-claim-reply";
    for (String made : List.of("/delay", path)) { // up front: the slowed link carries only the lock's requests
      try {
        raw.zk().create(made, new byte[0], org.apache.zookeeper.ZooDefs.Ids.OPEN_ACL_UNSAFE,
            org.apache.zookeeper.CreateMode.PERSISTENT);
      } catch (org.apache.zookeeper.KeeperException.NodeExistsException e) {
        // made by another test
      }
    }
    try (FaultProxy holderLink = FaultProxy.start(cluster.address(0));
        FaultProxy waiterLink = FaultProxy.start(cluster.address(0))) {
      Lease lost = baton(holderLink.connectString(), Duration.ofSeconds(1)).mutex(path, HOUR).acquire(WAIT);
      dev.baton.Baton waiterClient = baton(waiterLink.connectString(), Duration.ofSeconds(20));
      CompletableFuture<Lease> waiting = waiterClient.mutex(path, HOUR).acquireAsync();
      awaitChildren(path, 2);
      String waiterNode = raw.children(path).stream()
          .max((a, b) -> a.substring(a.lastIndexOf('-')).compareTo(b.substring(b.lastIndexOf('-')))).orElseThrow();
      await().atMost(WAIT).until(() -> watchedBy(waiterClient, path));
      waiterLink.delay(Duration.ofSeconds(1)); // replies trail what the server applied

      holderLink.blackhole(); // the holder's session expires; the server deletes its node
      await().atMost(WAIT).until(() -> record(path).equals("held:" + waiterNode));
      waiterLink.cut(); // the claim's replies are still in the delay line: dropped
      int claimVersion = raw.zk().exists(path, false).getVersion();
      assertThat(waiting).isNotDone();
      assertThat(lost.isValid()).isFalse();
      waiterLink.delay(Duration.ZERO);
      waiterLink.restore();

      // The retried claim is applied; then its reply is handled before any later one of the session.
      await().atMost(WAIT).until(() -> raw.zk().exists(path, false).getVersion() > claimVersion);
      answeredAfterEverythingSentSoFar(waiterClient, path);
      assertThat(waiting).as("held back by the lock-delay").isNotDone();

      waiting.cancel(true);
      awaitChildren(path, 0);
    }
  }

  /** Whether a getData watch of {@code client}'s session is set on a node under {@code path}. */
  private static boolean watchedBy(dev.baton.Baton client, String path) {
    return cluster.watchesBySession(0).getOrDefault(client.sessionId(), java.util.Set.of()).stream()
        .anyMatch(watched -> watched.startsWith(path + "/"));
  }

  /**
   * Returns once {@code client}'s session has answered a request sent now, and its event executor
   * has run what was handed to it until then: replies are handled in the order sent.
   */
  private static void answeredAfterEverythingSentSoFar(dev.baton.Baton client, String path) throws Exception {
    dev.baton.internal.session.Session session = dev.baton.internal.session.Sessions.of(client);
    CompletableFuture<Void> answered = new CompletableFuture<>();
    session.handle().zk().exists(path, false, (rc, p, ctx, stat) -> answered.complete(null), null);
    answered.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    CompletableFuture.runAsync(() -> { }, session.eventExecutor()).get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  @Test
  void lostHolder_nextHolderGetsTheLockOnceTheDelayHasPassed() throws Exception {
    String path = "/delay/lost-short";
    MutexOptions shortDelay = MutexOptions.defaults().withLockDelay(Duration.ofMillis(300));
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0))) {
      Lease lost = baton(proxy.connectString(), Duration.ofSeconds(1)).mutex(path, shortDelay).acquire(WAIT);
      List<LeaseState> told = new CopyOnWriteArrayList<>();
      lost.addListener((lease, state) -> told.add(state), Runnable::run);
      CompletableFuture<Lease> waiting = baton().mutex(path, shortDelay).acquireAsync();
      awaitChildren(path, 2);
      proxy.blackhole();
      Lease next = waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(told).contains(LeaseState.LOST);
      assertThat(next.fencingToken()).isGreaterThan(lost.fencingToken());
      next.close();
    }
    awaitChildren(path, 0);
  }

  @Test
  void lockDelay_worksWithLocalHandOver() throws Exception {
    String path = "/delay/cohort";
    Mutex mutex = baton().mutex(path, HOUR.withLocalHandOver(4));
    Lease first = mutex.acquire(WAIT);
    CompletableFuture<Lease> local = CompletableFuture.supplyAsync(() -> mutex.acquire(WAIT), pool(1));
    first.close();
    local.get(WAIT.toSeconds(), TimeUnit.SECONDS).close();
    awaitChildren(path, 0);
    assertThat(record(path)).startsWith("released:");
    // A later client is not held back by a release recorded as such.
    baton().mutex(path, HOUR).acquire(WAIT).close();
  }

  @Test
  void badLockDelay_isRefusedNamingTheArgument() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> MutexOptions.defaults().withLockDelay(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lockDelay");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> MutexOptions.defaults().withLockDelay(null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("lockDelay");
  }

  private static String record(String path) throws Exception {
    byte[] data = raw.zk().getData(path, false, null);
    return data == null ? "" : new String(data, StandardCharsets.UTF_8);
  }
}
