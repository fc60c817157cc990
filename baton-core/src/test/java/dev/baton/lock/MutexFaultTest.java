package dev.baton.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.ConnectionState;
import dev.baton.HelperZk;
import dev.baton.testkit.FaultProxy;
import dev.baton.testkit.MutualExclusionChecker;
import dev.baton.testkit.TestCluster;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The mutex under the faults it must survive, one client at a time behind a fault-injecting proxy:
 * connection cut before and after the create, session expiry while holding and while waiting.
 * Every test runs in each mode of the mutex (default, local hand-over, caching, both) and ends by
 * checking that no node is left under the lock path.
 */
class MutexFaultTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static TestCluster cluster;

  @BeforeAll
  static void startCluster() {
    cluster = TestCluster.builder().standalone().property("maxSessionTimeout", "30000").start();
  }

  @AfterAll
  static void stopCluster() {
    cluster.close();
  }

  private static Baton client(String connectString, Duration sessionTimeout) {
    return Baton.builder().connectString(connectString).sessionTimeout(sessionTimeout)
        .connectionTimeout(Duration.ofSeconds(10)).build();
  }

  private static List<String> children(String path) throws Exception {
    return HelperZk.childrenOf(cluster.connectString(), path);
  }

  /**
   * Makes {@code path} and its parents now, so that a delayed link carries only the lock's own
   * requests (each parent made through it would cost a delayed round trip).
   */
  private static void makePath(String path) throws Exception {
    try (HelperZk raw = HelperZk.connect(cluster.connectString())) {
      for (int slash = path.indexOf('/', 1); ; slash = path.indexOf('/', slash + 1)) {
        String prefix = slash < 0 ? path : path.substring(0, slash);
        try {
          raw.zk().create(prefix, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        } catch (KeeperException.NodeExistsException e) {
          // made by an earlier test
        }
        if (slash < 0) {
          return;
        }
      }
    }
  }

  @ParameterizedTest
  @EnumSource(MutexMode.class)
  void cutBeforeCreate_acquiresOnceConnectionReturns_withOneNode(MutexMode mode) throws Exception {
    String path = "/fault/cut-before-create-" + mode;
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0));
        Baton baton = client(proxy.connectString(), Duration.ofSeconds(20))) {
      proxy.cut();
      await().atMost(WAIT).until(() -> baton.connectionState() == ConnectionState.SUSPENDED);
      CompletableFuture<Lease> pending = baton.mutex(path, mode.options).acquireAsync();
      proxy.restore();

      Lease lease = pending.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(children(path)).hasSize(1);
      assertThat(lease.isValid()).isTrue();
      lease.close();
    }
    await().atMost(WAIT).until(() -> children(path).isEmpty());
  }

  /**
   * The create reaches the server but its reply is lost with the connection: the waiter must
   * find its node by the UUID in the name instead of creating a second one. A leaked first node
   * would stay owned by the live session and block the waiter's own second node forever.
   */
  @ParameterizedTest
  @EnumSource(MutexMode.class)
  void cutAfterCreate_beforeReply_findsItsNodeInsteadOfLeakingIt(MutexMode mode) throws Exception {
    String path = "/fault/cut-after-create-" + mode;
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0));
        Baton baton = client(proxy.connectString(), Duration.ofSeconds(20))) {
      List<ConnectionState> states = new CopyOnWriteArrayList<>();
      baton.addConnectionStateListener(states::add);
      makePath(path);
      proxy.delay(Duration.ofMillis(500));
      CompletableFuture<Lease> pending = baton.mutex(path, mode.options).acquireAsync();
      await().atMost(WAIT).until(() -> children(path).size() == 1);
      proxy.cut(); // the reply is still in the proxy's delay line: it is dropped
      assertThat(pending).isNotDone();
      await().atMost(WAIT).until(() -> states.contains(ConnectionState.SUSPENDED));
      proxy.restore();

      Lease lease = pending.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      List<String> nodes = children(path);
      assertThat(nodes).hasSize(1);
      assertThat(nodes.get(0)).endsWith("lock-0000000000");
      assertThat(baton.mutex(path).holder().orElseThrow().fencingToken()).isEqualTo(lease.fencingToken());
      lease.close();
    }
    await().atMost(WAIT).until(() -> children(path).isEmpty());
  }

  /**
   * The holder's link goes silent past its session timeout. It must be told SUSPECT (and then
   * LOST) before the ensemble ends its session and the waiter gets the lock; the waiter's token
   * is larger; the two critical sections do not overlap once the first ends at "told".
   */
  @ParameterizedTest
  @EnumSource(MutexMode.class)
  void expiryWhileHolding_holderToldBeforeNextHolderEnters(MutexMode mode) throws Exception {
    String path = "/fault/expiry-holding-" + mode;
    MutualExclusionChecker checker = MutualExclusionChecker.exclusive();
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0));
        Baton holderClient = client(proxy.connectString(), Duration.ofSeconds(1));
        Baton waiterClient = client(cluster.connectString(), Duration.ofSeconds(10))) {
      Lease first = holderClient.mutex(path, mode.options).acquire(WAIT);
      MutualExclusionChecker.Section firstSection = checker.enter("holder", first.fencingToken());
      AtomicLong toldAt = new AtomicLong();
      List<LeaseState> told = new CopyOnWriteArrayList<>();
      first.addListener((lease, state) -> {
        told.add(state);
        toldAt.compareAndSet(0, System.nanoTime());
        firstSection.lost();
      }, Runnable::run);
      CompletableFuture<Lease> waiting = waiterClient.mutex(path).acquireAsync();

      proxy.blackhole();
      Lease second = waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      long enteredAt = System.nanoTime();
      checker.enter("waiter", second.fencingToken()).exit();

      assertThat(toldAt.get()).isNotZero().isLessThan(enteredAt);
      assertThat(told).contains(LeaseState.SUSPECT, LeaseState.LOST);
      assertThat(first.isValid()).isFalse();
      assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
      checker.assertNoViolations();

      proxy.restore();
      await().atMost(WAIT).until(() -> holderClient.connectionState() == ConnectionState.RECONNECTED);
      assertThat(first.state()).isEqualTo(LeaseState.LOST);
      first.close();
      firstSection.exit();
      second.close();
    }
    await().atMost(WAIT).until(() -> children(path).isEmpty());
  }

  /**
   * A waiter's session expires: its node goes with it. It must queue again on the client's new
   * session and get the lock after the holder releases, with a node of the new session.
   */
  @ParameterizedTest
  @EnumSource(MutexMode.class)
  void expiryWhileWaiting_requeuesOnNewSessionAndAcquires(MutexMode mode) throws Exception {
    String path = "/fault/expiry-waiting-" + mode;
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0));
        Baton holderClient = client(cluster.connectString(), Duration.ofSeconds(10));
        Baton waiterClient = client(proxy.connectString(), Duration.ofSeconds(1))) {
      Mutex holderMutex = holderClient.mutex(path);
      Lease held = holderMutex.acquire(WAIT);
      long oldSession = waiterClient.sessionId();
      CompletableFuture<Lease> waiting = waiterClient.mutex(path, mode.options).acquireAsync();
      await().atMost(WAIT).until(() -> holderMutex.waiters().size() == 1);

      proxy.blackhole();
      await().atMost(WAIT).until(() -> holderMutex.waiters().isEmpty()); // session ended on the server
      proxy.restore();
      await().atMost(WAIT).until(() -> waiterClient.sessionId() != oldSession
          && holderMutex.waiters().size() == 1);
      assertThat(holderMutex.waiters().get(0).sessionId()).isEqualTo(waiterClient.sessionId());
      assertThat(waiting).isNotDone();

      held.close();
      Lease lease = waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(lease.isValid()).isTrue();
      assertThat(lease.fencingToken()).isGreaterThan(held.fencingToken());
      lease.close();
    }
    await().atMost(WAIT).until(() -> children(path).isEmpty());
  }

  /**
   * The create is sent on a session whose reply is lost, and that session then expires. On the
   * new session the waiter must not take the old node (or its name) for its own: it queues with
   * a new node, owned by the new session, and nothing of the old session remains.
   */
  @ParameterizedTest
  @EnumSource(MutexMode.class)
  void createReplyLostThenExpiry_newSessionNeverUsesOldSessionNode(MutexMode mode) throws Exception {
    String path = "/fault/old-session-node-" + mode;
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0));
        Baton baton = client(proxy.connectString(), Duration.ofSeconds(3));
        Baton observer = client(cluster.connectString(), Duration.ofSeconds(10));
        HelperZk raw = HelperZk.connect(cluster.connectString())) {
      long oldSession = baton.sessionId();
      // The reply trails the node's appearance by the delay: time enough to blackhole the link
      // first, when polled on an open connection. (A session shorter than the delayed round
      // trip would drop the connection by itself.)
      makePath(path);
      proxy.delay(Duration.ofMillis(600));
      CompletableFuture<Lease> pending = baton.mutex(path, mode.options).acquireAsync();
      await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> raw.children(path).size() == 1);
      proxy.blackhole(); // the reply never arrives and the session expires
      await().atMost(WAIT).until(() -> children(path).isEmpty());
      proxy.restore();

      Lease lease = pending.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(baton.sessionId()).isNotEqualTo(oldSession);
      LockOwner owner = observer.mutex(path).holder().orElseThrow();
      assertThat(owner.sessionId()).isEqualTo(baton.sessionId());
      assertThat(owner.fencingToken()).isEqualTo(lease.fencingToken());
      assertThat(children(path)).hasSize(1);
      lease.close();
    }
    await().atMost(WAIT).until(() -> children(path).isEmpty());
  }

  @ParameterizedTest
  @EnumSource(MutexMode.class)
  void timedOutWaiter_leavesNoNode_andClosingClientRemovesHeldNode(MutexMode mode) throws Exception {
    String path = "/fault/cleanup-" + mode;
    try (Baton holder = client(cluster.connectString(), Duration.ofSeconds(10));
        Baton waiter = client(cluster.connectString(), Duration.ofSeconds(10))) {
      holder.mutex(path, mode.options).acquire(WAIT);
      assertThat(waiter.mutex(path, mode.options).tryAcquire(Duration.ofMillis(200))).isEmpty();
      await().atMost(WAIT).until(() -> children(path).size() == 1);
      holder.close(); // without releasing: the session's end removes the node
      try (Lease lease = waiter.mutex(path, mode.options).acquire(WAIT)) {
        assertThat(children(path)).hasSize(1);
      }
    }
    await().atMost(WAIT).until(() -> children(path).isEmpty());
  }

  /**
   * A waiter gives up just as its client's link goes silent, so its watch removal is in flight
   * when the ZooKeeper client drops the connection. A lock the same client holds must still turn
   * SUSPECT and LOST before another client is granted it. (ZooKeeper's client drops its
   * Disconnected event when a removeWatches with local=true fails with the connection: the
   * failure queues a watch-removed event in state Disconnected, and the session event after it
   * is then taken for a repeat.)
   */
  @ParameterizedTest
  @EnumSource(MutexMode.class)
  void waiterGivingUpAsTheLinkGoesSilent_holderStillToldBeforeTheNextHolder(MutexMode mode) throws Exception {
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0));
        Baton victim = client(proxy.connectString(), Duration.ofSeconds(2));
        Baton other = client(cluster.connectString(), Duration.ofSeconds(10))) {
      Lease held = victim.mutex("/fault/told-held-" + mode, mode.options).acquire(WAIT);
      List<LeaseState> told = new CopyOnWriteArrayList<>();
      AtomicLong toldAt = new AtomicLong();
      held.addListener((lease, state) -> {
        told.add(state);
        toldAt.compareAndSet(0, System.nanoTime());
      }, Runnable::run);
      Lease blocker = other.mutex("/fault/told-blocked-" + mode).acquire(WAIT);
      CompletableFuture<Lease> givingUp = victim.mutex("/fault/told-blocked-" + mode, mode.options).acquireAsync();
      await().atMost(WAIT).until(() -> cluster.watchesBySession(0)
          .getOrDefault(victim.sessionId(), Set.of()).stream().anyMatch(p -> p.startsWith("/fault/told-blocked-" + mode + "/")));
      CompletableFuture<Lease> next = other.mutex("/fault/told-held-" + mode).acquireAsync();
      await().atMost(WAIT).until(() -> other.mutex("/fault/told-held-" + mode).waiters().size() == 1);

      proxy.blackhole();
      givingUp.cancel(true); // removes its watch: the request goes into the silent link
      Lease granted = next.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      long grantedAt = System.nanoTime();

      assertThat(told).as("states told to the holder").contains(LeaseState.SUSPECT, LeaseState.LOST);
      assertThat(toldAt.get()).as("told before the next holder was granted").isNotZero().isLessThan(grantedAt);
      assertThat(held.isValid()).isFalse();
      proxy.restore();
      granted.close();
      blocker.close();
    }
  }
}
