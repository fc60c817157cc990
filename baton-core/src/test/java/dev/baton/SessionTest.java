package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.LockOwner;
import dev.baton.testkit.FaultProxy;
import dev.baton.testkit.TestCluster;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The session layer: connection states, expiry and a new session, namespace, auth, threads. */
class SessionTest {
  private static TestCluster cluster;

  @BeforeAll
  static void startCluster() {
    // Sessions up to 30 s, so a test can have a disconnect that is short against the session.
    cluster = TestCluster.builder().standalone().property("maxSessionTimeout", "30000").start();
  }

  @AfterAll
  static void stopCluster() {
    cluster.close();
  }

  private static Baton.Builder client(String connectString) {
    return Baton.builder().connectString(connectString).sessionTimeout(Duration.ofSeconds(1))
        .connectionTimeout(Duration.ofSeconds(10));
  }

  @Test
  void connect_reportsConnectedAndSessionTimeoutGranted() {
    try (Baton baton = client(cluster.connectString()).build()) {
      assertThat(baton.connectionState()).isEqualTo(ConnectionState.CONNECTED);
      assertThat(baton.sessionId()).isNotZero();
      assertThat(baton.sessionTimeout()).isEqualTo(Duration.ofSeconds(1));
    }
  }

  /**
   * A disconnect noticed by a closed socket may come right after the last contact, but the client
   * cannot know that, so it trusts the session for a third of its timeout less a margin after the
   * disconnect; ZooKeeper's randomized reconnect takes up to about 2 s, hence a 20 s session.
   */
  @Test
  void shortCut_suspendsThenReconnectsSameSession_leaseSuspectThenHeld() {
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0));
        Baton baton = client(proxy.connectString()).sessionTimeout(Duration.ofSeconds(20)).build()) {
      List<ConnectionState> states = new CopyOnWriteArrayList<>();
      baton.addConnectionStateListener(states::add);
      long session = baton.sessionId();
      Lease lease = baton.mutex("/session/short-cut").acquire(Duration.ofSeconds(5));
      List<LeaseState> leaseStates = new CopyOnWriteArrayList<>();
      lease.addListener((l, state) -> leaseStates.add(state));

      proxy.cut();
      await().atMost(Duration.ofSeconds(10)).until(() -> states.contains(ConnectionState.SUSPENDED));
      assertThat(lease.state()).isIn(LeaseState.SUSPECT, LeaseState.HELD);
      Instant frozen = lease.validUntil();
      proxy.restore();
      await().atMost(Duration.ofSeconds(10)).until(() -> states.contains(ConnectionState.RECONNECTED));

      assertThat(baton.sessionId()).isEqualTo(session);
      await().atMost(Duration.ofSeconds(5)).until(() -> leaseStates.contains(LeaseState.HELD));
      assertThat(leaseStates).startsWith(LeaseState.SUSPECT);
      assertThat(lease.isValid()).isTrue();
      assertThat(lease.validUntil()).isAfter(frozen);
      lease.close();
    }
  }

  @Test
  void expiry_reportsLostThenReconnectsWithNewSession_andLeaseStaysLost() {
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0));
        Baton baton = client(proxy.connectString()).build()) {
      List<ConnectionState> states = new CopyOnWriteArrayList<>();
      baton.addConnectionStateListener(states::add);
      long firstSession = baton.sessionId();
      Lease lease = baton.mutex("/session/expiry").acquire(Duration.ofSeconds(5));
      List<LeaseState> leaseStates = new CopyOnWriteArrayList<>();
      lease.addListener((l, state) -> leaseStates.add(state));

      proxy.blackhole();
      await().atMost(Duration.ofSeconds(10)).until(() -> states.contains(ConnectionState.LOST));
      assertThat(lease.state()).isEqualTo(LeaseState.LOST);
      assertThat(lease.validUntil()).isBefore(Instant.now());
      // Held long enough past the session timeout that the ensemble has ended the session.
      try (Baton other = client(cluster.connectString()).build()) {
        await().atMost(Duration.ofSeconds(10))
            .until(() -> other.mutex("/session/expiry").holder().isEmpty());
      }
      proxy.restore();

      await().atMost(Duration.ofSeconds(15)).until(() -> baton.sessionId() != firstSession
          && baton.connectionState() == ConnectionState.RECONNECTED);
      assertThat(states).containsSubsequence(
          ConnectionState.SUSPENDED, ConnectionState.LOST, ConnectionState.RECONNECTED);
      assertThat(leaseStates).containsExactly(LeaseState.SUSPECT, LeaseState.LOST);
      assertThat(lease.isValid()).isFalse();
      lease.close();
      assertThat(lease.state()).isEqualTo(LeaseState.RELEASED);
      // The client works on its new session.
      try (Lease again = baton.mutex("/session/expiry").acquire(Duration.ofSeconds(5))) {
        assertThat(again.fencingToken()).isGreaterThan(lease.fencingToken());
      }
    }
  }

  /**
   * After expiry the new handle cannot be opened at first (here its socket refuses twice). The
   * session keeps trying with the retry policy's pauses instead of staying on the expired handle
   * for good; once it opens, a waiter queued on the old session queues again on the new one.
   */
  @Test
  void expiry_newHandleFailsToOpen_retriedUntilANewSessionOpens_andWaitersQueueAgain() throws Exception {
    String path = "/session/expiry-retry";
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0));
        Baton baton = client(proxy.connectString())
            .zkClientProperty("zookeeper.clientCnxnSocket", org.apache.zookeeper.FailingClientCnxnSocket.class.getName())
            .build();
        Baton other = client(cluster.connectString()).sessionTimeout(Duration.ofSeconds(10)).build()) {
      List<ConnectionState> states = new CopyOnWriteArrayList<>();
      baton.addConnectionStateListener(states::add);
      long firstSession = baton.sessionId();
      Lease held = other.mutex(path).acquire(Duration.ofSeconds(5));
      java.util.concurrent.CompletableFuture<Lease> waiting = baton.mutex(path).acquireAsync();
      await().atMost(Duration.ofSeconds(10)).until(() -> other.mutex(path).waiters().size() == 1);

      org.apache.zookeeper.FailingClientCnxnSocket.failNext(2);
      proxy.blackhole();
      await().atMost(Duration.ofSeconds(10)).until(() -> states.contains(ConnectionState.LOST));
      // Held long enough past the session timeout that the ensemble has ended the session.
      await().atMost(Duration.ofSeconds(10)).until(() -> other.mutex(path).waiters().isEmpty());
      proxy.restore();

      await().atMost(Duration.ofSeconds(15)).until(() -> baton.sessionId() != firstSession
          && baton.connectionState() == ConnectionState.RECONNECTED);
      assertThat(org.apache.zookeeper.FailingClientCnxnSocket.failuresLeft()).isZero();
      await().atMost(Duration.ofSeconds(10)).until(() -> other.mutex(path).waiters().size() == 1);
      held.close();
      waiting.get(10, java.util.concurrent.TimeUnit.SECONDS).close();
    } finally {
      org.apache.zookeeper.FailingClientCnxnSocket.failNext(0);
    }
  }

  @Test
  void namespace_placesNodesUnderIt() throws Exception {
    try (Baton baton = client(cluster.connectString()).namespace("/apps/shop").build();
        Lease lease = baton.mutex("/locks/a").acquire()) {
      try (HelperZk raw = HelperZk.connect(cluster.connectString())) {
        List<String> children = raw.children("/apps/shop/locks/a");
        assertThat(children).hasSize(1);
        assertThat(children.get(0)).startsWith("_c_").contains("-lock-");
        assertThat(baton.mutex("/locks/a").holder()).isPresent();
      }
      assertThat(lease.path()).isEqualTo("/locks/a");
    }
  }

  @Test
  void digestAuth_connectsAndLocks() {
    try (Baton baton = client(cluster.connectString()).digestAuth("shop", "secret").build();
        Lease lease = baton.mutex("/session/auth").acquire(Duration.ofSeconds(5))) {
      assertThat(lease.isValid()).isTrue();
    }
  }

  @Test
  void lockNodeData_recordsOwner() throws Exception {
    try (Baton baton = client(cluster.connectString()).build();
        Lease lease = baton.mutex("/session/owner").acquire()) {
      LockOwner owner = baton.mutex("/session/owner").holder().orElseThrow();
      assertThat(owner.pid()).isEqualTo(ProcessHandle.current().pid());
      assertThat(owner.thread()).isEqualTo(Thread.currentThread().getName());
      assertThat(owner.fencingToken()).isEqualTo(lease.fencingToken());
      assertThat(owner.sessionId()).isEqualTo(baton.sessionId());
      try (HelperZk raw = HelperZk.connect(cluster.connectString())) {
        String node = raw.children("/session/owner").get(0);
        String json = new String(raw.data("/session/owner/" + node), StandardCharsets.UTF_8);
        assertThat(json).contains("\"pid\":" + ProcessHandle.current().pid());
      }
    }
  }

  @Test
  void close_stopsEveryThreadTheClientStarted() {
    java.util.Set<Thread> before = Thread.getAllStackTraces().keySet();
    Baton baton = client(cluster.connectString()).build();
    baton.mutex("/session/threads").acquire().close();
    baton.close();
    baton.close(); // idempotent
    await().atMost(Duration.ofSeconds(10)).until(() -> Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .filter(t -> !before.contains(t))
        .noneMatch(t -> t.getName().startsWith("baton-") || t.getName().contains("SendThread")
            || t.getName().contains("EventThread")));
  }
}
