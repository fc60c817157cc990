package dev.baton.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.HelperZk;
import dev.baton.testkit.TestCluster;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.Revoker;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Cooperative revocation: another process asks, the holder is told and decides. */
class RevocationTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static TestCluster cluster;
  private static Baton holderClient;
  private static Baton askerClient;

  @BeforeAll
  static void start() {
    cluster = TestCluster.standalone();
    holderClient = Baton.connect(cluster.connectString());
    askerClient = Baton.connect(cluster.connectString());
  }

  @AfterAll
  static void stop() {
    holderClient.close();
    askerClient.close();
    cluster.close();
  }

  @Test
  void requestRevocation_callsTheHolder_whichReleases_andTheAskerGetsTheLock() throws Exception {
    String path = "/revoke/cooperative";
    Lease held = holderClient.mutex(path).acquire(WAIT);
    AtomicInteger asked = new AtomicInteger();
    held.makeRevocable(lease -> {
      asked.incrementAndGet();
      lease.close();
    });
    Mutex wanted = askerClient.mutex(path);
    assertThat(wanted.tryAcquire(Duration.ZERO)).isEmpty();

    assertThat(askerClient.requestRevocation(wanted)).isTrue();
    try (Lease mine = wanted.acquire(WAIT)) {
      assertThat(asked.get()).isEqualTo(1);
      assertThat(held.state()).isEqualTo(LeaseState.RELEASED);
      assertThat(mine.fencingToken()).isGreaterThan(held.fencingToken());
    }
  }

  @Test
  void requestRevocation_holderMayRefuse_andANonRevocableHolderIsNotDisturbed() throws Exception {
    String path = "/revoke/refused";
    try (Lease held = holderClient.mutex(path).acquire(WAIT)) {
      CountDownLatch asked = new CountDownLatch(1);
      held.makeRevocable(lease -> asked.countDown()); // told, keeps the lock
      assertThat(askerClient.requestRevocation(askerClient.mutex(path))).isTrue();
      assertThat(asked.await(20, TimeUnit.SECONDS)).isTrue();
      assertThat(held.isValid()).isTrue();
      assertThat(askerClient.mutex(path).tryAcquire(Duration.ZERO)).isEmpty();
    }
    assertThat(askerClient.requestRevocation(askerClient.mutex(path))).isFalse(); // nobody holds it
  }

  @Test
  void requestMadeBeforeMakeRevocable_isReportedAtOnce() throws Exception {
    String path = "/revoke/early";
    try (Lease held = holderClient.mutex(path).acquire(WAIT)) {
      askerClient.requestRevocation(askerClient.mutex(path));
      CountDownLatch asked = new CountDownLatch(1);
      held.makeRevocable(lease -> asked.countDown());
      assertThat(asked.await(20, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void curatorRevoker_reachesABatonHolder_andBatonReachesACuratorHolder() throws Exception {
    String path = "/revoke/curator";
    try (CuratorFramework curator = CuratorFrameworkFactory.newClient(
        cluster.connectString(), new ExponentialBackoffRetry(100, 3))) {
      curator.start();
      curator.blockUntilConnected();

      // Curator asks a Baton holder.
      Lease held = holderClient.mutex(path).acquire(WAIT);
      CountDownLatch batonAsked = new CountDownLatch(1);
      held.makeRevocable(lease -> {
        batonAsked.countDown();
        lease.close();
      });
      String node = path + "/" + holderClient.mutex(path).holder().orElseThrow().node();
      Revoker.attemptRevoke(curator, node);
      assertThat(batonAsked.await(20, TimeUnit.SECONDS)).isTrue();

      // Baton asks a Curator holder.
      InterProcessMutex curatorMutex = new InterProcessMutex(curator, path);
      CountDownLatch curatorAsked = new CountDownLatch(1);
      curatorMutex.makeRevocable(forLock -> curatorAsked.countDown());
      assertThat(curatorMutex.acquire(20, TimeUnit.SECONDS)).isTrue();
      try {
        assertThat(askerClient.requestRevocation(askerClient.mutex(path))).isTrue();
        assertThat(curatorAsked.await(20, TimeUnit.SECONDS)).isTrue();
        String data = new String(curator.getData().forPath(
            path + "/" + askerClient.mutex(path).holder().orElseThrow().node()), StandardCharsets.UTF_8);
        assertThat(data).isEqualTo("__REVOKE__");
      } finally {
        curatorMutex.release();
      }
    }
    await().atMost(WAIT).until(() -> HelperZk.childrenOf(cluster.connectString(), path).isEmpty());
  }
}
