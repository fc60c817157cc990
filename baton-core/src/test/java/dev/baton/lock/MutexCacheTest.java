package dev.baton.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.ClusterTestSupport;
import dev.baton.ConnectionState;
import dev.baton.FencingTokens;
import dev.baton.testkit.FaultProxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;

/**
 * Lock caching ({@link MutexOptions#withCaching}): after a release with nobody else waiting the
 * client keeps its node, so acquiring again costs no request; it gives the node up as soon as
 * another client (Baton or Curator) queues, after the idle time, or when its connection is in
 * doubt. Every holder still gets a larger token than the one before.
 */
class MutexCacheTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final MutexOptions CACHED = MutexOptions.defaults().withCaching(Duration.ofMinutes(5));

  @Test
  void cachedCycles_sendNoRequest_andTokensStillGrow() {
    String path = "/cache/free";
    Baton client = baton(cluster.connectString(), Duration.ofSeconds(30));
    Mutex mutex = client.mutex(path, CACHED);
    long previous;
    try (Lease first = mutex.acquire(WAIT)) {
      previous = first.fencingToken();
    }
    // The first release marks the node as cached and sets the children watch: let both land.
    await().atMost(WAIT).until(() -> mutex.holder().map(LockOwner::cached).orElse(false));
    long before = cluster.packetsReceived(0);
    for (int i = 0; i < 1000; i++) {
      try (Lease lease = mutex.acquire(WAIT)) {
        assertThat(lease.fencingToken()).isGreaterThan(previous);
        previous = lease.fencingToken();
      }
    }
    long sent = cluster.packetsReceived(0) - before;
    // The counter's own read may count; a ping may fall in the window. 1000 cycles, not 3000.
    assertThat(sent).isLessThanOrEqualTo(3);
    LockOwner holder = mutex.holder().orElseThrow();
    assertThat(holder.cached()).isTrue();
    assertThat(holder.sessionId()).isEqualTo(client.sessionId());
  }

  @Test
  void anotherClientQueueing_getsTheCachedLock_andTheCacherQueuesBehindIt() throws Exception {
    String path = "/cache/contended";
    Mutex cacher = baton().mutex(path, CACHED);
    long cachedToken;
    try (Lease lease = cacher.acquire(WAIT)) {
      cachedToken = lease.fencingToken();
    }
    awaitChildren(path, 1);
    Lease other = baton().mutex(path).acquire(WAIT);
    assertThat(other.fencingToken()).isGreaterThan(cachedToken);
    assertThat(raw.children(path)).hasSize(1);
    CompletableFuture<Lease> again = cacher.acquireAsync();
    awaitChildren(path, 2);
    assertThat(again).isNotDone();
    other.close();
    Lease back = again.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(back.fencingToken()).isGreaterThan(other.fencingToken());
    back.close();
  }

  @Test
  void curatorClientQueueing_getsTheCachedLock() throws Exception {
    String path = "/cache/curator";
    Mutex cacher = baton().mutex(path, CACHED);
    long cachedToken;
    try (Lease lease = cacher.acquire(WAIT)) {
      cachedToken = lease.fencingToken();
    }
    awaitChildren(path, 1);
    CuratorFramework curator = closing(CuratorFrameworkFactory.newClient(cluster.connectString(), new RetryOneTime(100)));
    curator.start();
    HelperCuratorMutex curatorMutex = new HelperCuratorMutex(curator, path);
    assertThat(curatorMutex.acquire(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    assertThat(curatorMutex.ownFencingToken()).isGreaterThan(cachedToken);
    assertThat(raw.children(path)).hasSize(1);
    curatorMutex.release();
  }

  @Test
  void lockHeldWhenAnotherQueues_isGivenUpAtRelease() throws Exception {
    String path = "/cache/held";
    Mutex cacher = baton().mutex(path, CACHED);
    cacher.acquire(WAIT).close(); // cached from here on, with its watch
    Lease held = cacher.acquire(WAIT);
    CompletableFuture<Lease> other = baton().mutex(path).acquireAsync();
    awaitChildren(path, 2);
    assertThat(other).isNotDone();
    held.close();
    other.get(WAIT.toSeconds(), TimeUnit.SECONDS).close();
    awaitChildren(path, 0);
  }

  @Test
  void idleCachedNode_isDeletedAfterTheIdleTime() {
    String path = "/cache/idle";
    Mutex cacher = baton().mutex(path, MutexOptions.defaults().withCaching(Duration.ofMillis(300)));
    cacher.acquire(WAIT).close();
    awaitChildren(path, 0);
    try (Lease lease = cacher.acquire(WAIT)) {
      assertThat(lease.isValid()).isTrue();
    }
  }

  @Test
  void connectionInDoubt_cachedNodeIsGivenUp_andTheNextHolderHasALargerToken() throws Exception {
    String path = "/cache/suspended";
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0))) {
      Baton client = baton(proxy.connectString(), Duration.ofSeconds(20));
      Mutex cacher = client.mutex(path, CACHED);
      long cachedToken;
      try (Lease lease = cacher.acquire(WAIT)) {
        cachedToken = lease.fencingToken();
      }
      String cachedNode = raw.children(path).get(0);
      proxy.cut();
      await().atMost(WAIT).until(() -> client.connectionState() == ConnectionState.SUSPENDED);
      proxy.restore();
      await().atMost(WAIT).until(() -> client.connectionState() == ConnectionState.RECONNECTED);
      try (Lease lease = cacher.acquire(WAIT)) {
        assertThat(lease.fencingToken()).isGreaterThan(cachedToken);
        assertThat(raw.children(path)).singleElement().isNotEqualTo(cachedNode);
      }
    }
  }

  @Test
  void aNodeServesAtMostItsShareOfTokens_thenAFreshNodeTakesOver() throws Exception {
    String path = "/cache/renewal";
    Mutex cacher = baton().mutex(path, CACHED);
    long previous = -1;
    long firstNodeZxid = -1;
    long lastNodeZxid = -1;
    for (int i = 0; i < FencingTokens.PER_NODE + 10; i++) {
      try (Lease lease = cacher.acquire(WAIT)) {
        assertThat(lease.fencingToken()).isGreaterThan(previous);
        previous = lease.fencingToken();
        lastNodeZxid = FencingTokens.nodeZxid(lease.fencingToken());
        if (firstNodeZxid < 0) {
          firstNodeZxid = lastNodeZxid;
        }
      }
    }
    assertThat(lastNodeZxid).isGreaterThan(firstNodeZxid);
    List<String> children = raw.children(path);
    assertThat(children).hasSize(1);
  }
}
