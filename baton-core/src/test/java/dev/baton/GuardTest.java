package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.lock.Lease;
import dev.baton.lock.LeaseLostException;
import dev.baton.lock.LeaseState;
import dev.baton.lock.MultiLock;
import dev.baton.lock.Mutex;
import dev.baton.lock.MutexOptions;
import dev.baton.testkit.FaultProxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Guarded writes ({@link Baton#guards(Lease)}) for the leases that stand on several nodes, or on a
 * node of their own outside the mutex family: semaphore leases of one and of three permits, and
 * multi-lock leases. The write lands while every node exists; once one is gone (released, session
 * expired) the transaction fails with {@link LeaseLostException} and writes nothing.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class GuardTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final byte[] NO_DATA = new byte[0];

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(String path) throws Exception {
    return new String(raw.data(path), StandardCharsets.UTF_8);
  }

  private static void createRaw(String path, String data) throws Exception {
    raw.zk().create(path, bytes(data), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
  }

  /** The guards, then {@code write}: how a caller puts a list of guards into one transaction. */
  private static Op[] guarded(List<Op> guards, Op write) {
    List<Op> ops = new ArrayList<>(guards);
    ops.add(write);
    return ops.toArray(Op[]::new);
  }

  private static List<String> checkedPaths(List<Op> guards) {
    return guards.stream().peek(op -> assertThat(op.getType()).isEqualTo(ZooDefs.OpCode.check))
        .map(Op::getPath).toList();
  }

  // ---- semaphore ------------------------------------------------------------------------------

  @Test
  void semaphoreOfOnePermit_guardChecksTheLeaseNode_andTheWriteLandsWhileHeld() throws Exception {
    String path = "/guard/semaphore-one";
    createRaw("/guard-data-one", "before");
    Baton baton = baton();
    try (Lease lease = baton.semaphore(path, 2).acquire(WAIT)) {
      Op guard = Baton.guard(lease);

      assertThat(guard.getType()).isEqualTo(ZooDefs.OpCode.check);
      assertThat(guard.getPath()).isEqualTo(path + "/leases/" + raw.children(path + "/leases").get(0));
      assertThat(Baton.guards(lease)).containsExactly(guard);
      assertThat(Baton.guard(lease)).as("the same object every time").isSameAs(guard);
      baton.transaction(guard, Op.setData("/guard-data-one", bytes("after"), -1));
    }
    assertThat(text("/guard-data-one")).isEqualTo("after");
  }

  @Test
  void semaphoreOfOnePermit_released_guardTakenBeforeFailsTheTransaction_andWritesNothing() throws Exception {
    String path = "/guard/semaphore-released";
    Baton baton = baton();
    Lease lease = baton.semaphore(path, 1).acquire(WAIT);
    Op guard = Baton.guard(lease);
    lease.close();
    awaitChildren(path + "/leases", 0);

    assertThatThrownBy(() -> Baton.guard(lease)).isInstanceOf(IllegalStateException.class).hasMessageContaining(path);
    assertThatThrownBy(() -> Baton.guards(lease)).isInstanceOf(IllegalStateException.class).hasMessageContaining(path);
    assertThatThrownBy(() -> baton.transaction(guard,
            Op.create("/guard-released", NO_DATA, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT)))
        .isInstanceOfSatisfying(LeaseLostException.class, e -> {
          assertThat(e.path()).isEqualTo(path);
          assertThat(e.nodePath()).isEqualTo(guard.getPath());
        });
    assertThat(raw.exists("/guard-released")).isFalse();
  }

  @Test
  void semaphoreOfThreePermits_guardsCheckEveryLeaseNode_andTheWriteLandsWhileHeld() throws Exception {
    String path = "/guard/semaphore-three";
    createRaw("/guard-data-three", "before");
    Baton baton = baton();
    try (Lease lease = baton.semaphore(path, 3).acquire(3, WAIT)) {
      List<Op> guards = Baton.guards(lease);

      assertThat(checkedPaths(guards)).containsExactlyInAnyOrderElementsOf(
          raw.children(path + "/leases").stream().map(node -> path + "/leases/" + node).toList());
      assertThat(guards).hasSize(3);
      assertThatThrownBy(() -> Baton.guard(lease)).isInstanceOf(UnsupportedOperationException.class)
          .hasMessageContaining(path).hasMessageContaining("3 permits").hasMessageContaining("guards()");
      baton.transaction(guarded(guards, Op.setData("/guard-data-three", bytes("after"), -1)));
    }
    assertThat(text("/guard-data-three")).isEqualTo("after");
  }

  /**
   * One of the three lease nodes is gone (deleted here by hand; in life, by a tool or an operator
   * cleaning up): a guard on any single node could let the write through, the guards must not.
   */
  @Test
  void semaphoreOfThreePermits_anyOneNodeGone_failsTheTransaction() throws Exception {
    String path = "/guard/semaphore-one-gone";
    createRaw("/guard-data-gone", "before");
    Baton baton = baton();
    try (Lease lease = baton.semaphore(path, 3).acquire(3, WAIT)) {
      List<Op> guards = Baton.guards(lease);
      String last = guards.get(guards.size() - 1).getPath();
      raw.zk().delete(last, -1);

      assertThatThrownBy(() -> baton.transaction(guarded(guards, Op.setData("/guard-data-gone", bytes("after"), -1))))
          .isInstanceOfSatisfying(LeaseLostException.class, e -> assertThat(e.nodePath()).isEqualTo(last));
    }
    assertThat(text("/guard-data-gone")).isEqualTo("before");
  }

  /**
   * The holder of three permits is cut off past its session while another client waits for
   * them; once it is back (on a new session) its guards fail the write, while the new holder's
   * land.
   */
  @Test
  void semaphoreOfThreePermits_sessionExpired_guardsFailTheStaleWrite() throws Exception {
    String path = "/guard/semaphore-expired";
    createRaw("/guard-data-expired", "initial");
    FaultProxy proxy = closing(FaultProxy.start(cluster.address(0)));
    Baton staleClient = baton(proxy.connectString(), Duration.ofSeconds(1));
    Baton current = baton();
    Lease stale = staleClient.semaphore(path, 3).acquire(3, WAIT);
    List<Op> staleGuards = Baton.guards(stale);
    CompletableFuture<Lease> waiting = current.semaphore(path, 3).acquireAsync();
    awaitChildren(path + "/leases", 4);

    proxy.blackhole();
    Lease next = waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    proxy.restore();
    await().atMost(WAIT).until(() -> staleClient.connectionState() == ConnectionState.RECONNECTED);
    assertThat(stale.state()).isEqualTo(LeaseState.LOST);
    current.transaction(guarded(Baton.guards(next), Op.setData("/guard-data-expired", bytes("new holder"), -1)));

    assertThatThrownBy(() -> staleClient.transaction(
            guarded(staleGuards, Op.setData("/guard-data-expired", bytes("stale holder"), -1))))
        .isInstanceOfSatisfying(LeaseLostException.class, e -> assertThat(e.path()).isEqualTo(path))
        .hasMessageContaining("not applied");
    assertThat(text("/guard-data-expired")).isEqualTo("new holder");
    stale.close();
    next.close();
  }

  // ---- multi-lock -----------------------------------------------------------------------------

  @Test
  void multiLock_guardsCheckEveryHeldNode_andTheWriteLandsWhileHeld() throws Exception {
    createRaw("/guard-data-multi", "before");
    Baton baton = baton();
    MultiLock multi = baton.multiLock(baton.mutex("/guard/multi/b"), baton.mutex("/guard/multi/a"));
    try (MultiLock.MultiLease lease = multi.acquire(WAIT)) {
      List<Op> guards = Baton.guards(lease);

      assertThat(checkedPaths(guards)).containsExactly(
          "/guard/multi/a/" + raw.children("/guard/multi/a").get(0),
          "/guard/multi/b/" + raw.children("/guard/multi/b").get(0));
      assertThat(guards).containsExactly(Baton.guard(lease.parts().get(0)), Baton.guard(lease.parts().get(1)));
      assertThatThrownBy(() -> Baton.guard(lease)).isInstanceOf(UnsupportedOperationException.class)
          .hasMessageContaining("/guard/multi/a").hasMessageContaining("guards()");
      baton.transaction(guarded(guards, Op.setData("/guard-data-multi", bytes("after"), -1)));
    }
    assertThat(text("/guard-data-multi")).isEqualTo("after");
  }

  @Test
  void multiLockOfOneLock_guardIsThatLocksGuard() throws Exception {
    Baton baton = baton();
    try (MultiLock.MultiLease lease = baton.multiLock(baton.mutex("/guard/multi-one")).acquire(WAIT)) {
      assertThat(Baton.guard(lease)).isSameAs(Baton.guard(lease.parts().get(0)));
      assertThat(Baton.guards(lease)).containsExactly(Baton.guard(lease));
    }
  }

  @Test
  void multiLock_released_guardsTakenBeforeFailTheTransaction_andWriteNothing() throws Exception {
    Baton baton = baton();
    MultiLock.MultiLease lease = baton.multiLock(baton.mutex("/guard/multi-released/a"),
        baton.mutex("/guard/multi-released/b")).acquire(WAIT);
    List<Op> guards = Baton.guards(lease);
    lease.close();
    awaitChildren("/guard/multi-released/a", 0);
    awaitChildren("/guard/multi-released/b", 0);

    assertThatThrownBy(() -> Baton.guards(lease)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("/guard/multi-released/a");
    assertThatThrownBy(() -> baton.transaction(guarded(guards,
            Op.create("/guard-multi-released", NO_DATA, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT))))
        .isInstanceOfSatisfying(LeaseLostException.class,
            e -> assertThat(e.path()).isEqualTo("/guard/multi-released/a"));
    assertThat(raw.exists("/guard-multi-released")).isFalse();
  }

  /**
   * The two locks are taken through two clients, and only the second client's session expires:
   * the first part is still held, so only a guard on every node stops the write.
   */
  @Test
  void multiLock_oneClientsSessionExpired_guardsFailTheWrite_thoughTheOtherPartIsHeld() throws Exception {
    String a = "/guard/multi-expired/a";
    String b = "/guard/multi-expired/b";
    createRaw("/guard-data-multi-expired", "initial");
    FaultProxy proxy = closing(FaultProxy.start(cluster.address(0)));
    Baton healthy = baton();
    Baton cutOff = baton(proxy.connectString(), Duration.ofSeconds(1));
    MultiLock.MultiLease lease = healthy.multiLock(healthy.mutex(a), cutOff.mutex(b)).acquire(WAIT);
    List<Op> guards = Baton.guards(lease);
    long cutOffSession = cutOff.sessionId();

    proxy.blackhole();
    awaitChildren(b, 0); // the ensemble ended the cut-off session, and b's node with it
    proxy.restore();
    await().atMost(WAIT).until(() -> cutOff.connectionState() == ConnectionState.RECONNECTED
        && cutOff.sessionId() != cutOffSession);
    assertThat(lease.parts().get(0).isValid()).isTrue();
    assertThat(lease.state()).isEqualTo(LeaseState.LOST);

    assertThatThrownBy(() -> healthy.transaction(
            guarded(guards, Op.setData("/guard-data-multi-expired", bytes("stale"), -1))))
        .isInstanceOfSatisfying(LeaseLostException.class, e -> {
          assertThat(e.path()).isEqualTo(b);
          assertThat(e.nodePath()).isEqualTo(guards.get(1).getPath());
        });
    assertThat(text("/guard-data-multi-expired")).isEqualTo("initial");
    lease.close();
    awaitChildren(a, 0);
  }

  @Test
  void mutexLease_guardsIsItsGuard() throws Exception {
    try (Lease lease = baton().mutex("/guard/mutex").acquire(WAIT)) {
      assertThat(Baton.guards(lease)).containsExactly(Baton.guard(lease));
    }
  }

  /** A lease from another backend (here: written in the test) has no node to check. */
  @Test
  void guard_ofALeaseWithoutZooKeeperNode_isRefusedNamingIt() {
    Lease foreign = new Lease() {
      @Override public String path() { return "/elsewhere/lock"; }
      @Override public long fencingToken() { return 1; }
      @Override public LeaseState state() { return LeaseState.HELD; }
      @Override public boolean isValid() { return true; }
      @Override public java.time.Instant validUntil() { return java.time.Instant.MAX; }
      @Override public void addListener(dev.baton.lock.LeaseListener listener) { }
      @Override public void addListener(dev.baton.lock.LeaseListener listener, java.util.concurrent.Executor executor) { }
      @Override public void close() { }
    };
    assertThatThrownBy(() -> Baton.guard(foreign)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("/elsewhere/lock").hasMessageContaining("no ZooKeeper node");
    assertThatThrownBy(() -> Baton.guards(foreign)).isInstanceOf(IllegalArgumentException.class);
  }

  // ---- issue 31, defect 4: the node outlives its holder (local hand-over, caching) ------------

  /**
   * The released holder's guard is refused before sending while the next holder of this client
   * stands on the same node, handed over locally or taken from the cache: the check on the
   * ensemble would pass, as the node is still there.
   */
  @Test
  void sharedNode_releasedHoldersGuard_refusedBeforeSending_whileTheNextLocalHolderHolds() throws Exception {
    Baton baton = baton();
    createRaw("/guard-data-shared-node", "initial");
    for (MutexOptions options : List.of(MutexOptions.defaults().withCaching(Duration.ofMinutes(5)),
        MutexOptions.defaults().withLocalHandOver(5))) {
      String path = "/guard/shared-node-" + options.localHandOvers();
      Mutex mutex = baton.mutex(path, options);
      Lease released = mutex.acquireAsync().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      boolean handOver = options.localHandOvers() > 0;
      CompletableFuture<Lease> waiting = handOver ? mutex.acquireAsync() : null; // waits locally
      Op stale = Baton.guard(released);
      released.close();
      Lease holding = (handOver ? waiting : mutex.acquireAsync()).get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(Baton.guard(holding).getPath()).as("the same node, %s", options).isEqualTo(stale.getPath());

      assertThatThrownBy(() -> baton.transaction(stale, Op.setData("/guard-data-shared-node", bytes("stale"), -1)))
          .as("%s", options)
          .isInstanceOfSatisfying(LeaseLostException.class, e -> {
            assertThat(e.path()).isEqualTo(path);
            assertThat(e.nodePath()).isEqualTo(stale.getPath());
          });
      assertThat(text("/guard-data-shared-node")).as("%s", options).isEqualTo("initial");
      baton.transaction(Baton.guard(holding), Op.setData("/guard-data-shared-node", bytes("initial"), -1));
      holding.close();
    }
  }

  /**
   * The holder's guarded transaction is on its way (its link slowed) when its lease is closed
   * from another thread; a thread of the same client waits locally. The node must be handed to
   * that thread only once the transaction's reply is in, never while it may still land.
   */
  @Test
  void localHandOver_waitsForTheReleasedHoldersGuardedTransactionInFlight() throws Exception {
    String path = "/guard/hand-over-in-flight";
    createRaw("/guard-data-in-flight", "initial");
    FaultProxy proxy = closing(FaultProxy.start(cluster.address(0)));
    Baton baton = baton(proxy.connectString(), Duration.ofSeconds(10));
    Mutex mutex = baton.mutex(path, MutexOptions.defaults().withLocalHandOver(5));
    Lease first = mutex.acquireAsync().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    CompletableFuture<Lease> second = mutex.acquireAsync();
    Op guard = Baton.guard(first);
    ExecutorService writerThread = pool(1);
    AtomicReference<Thread> writer = new AtomicReference<>();
    CompletableFuture<Boolean> grantedDuringTheWrite = second.thenApply(lease -> isInMulti(writer.get()));

    proxy.delay(Duration.ofSeconds(2)); // keeps the transaction in flight; no assertion on time
    Future<?> write = writerThread.submit(() -> {
      writer.set(Thread.currentThread());
      return baton.transaction(guard, Op.setData("/guard-data-in-flight", bytes("first"), -1));
    });
    await().atMost(WAIT).until(() -> writer.get() != null && isInMulti(writer.get()));
    first.close();

    Lease next = second.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    write.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(grantedDuringTheWrite.get(WAIT.toSeconds(), TimeUnit.SECONDS)).as("handed over while the released holder's write was in flight")
        .isFalse();
    assertThat(text("/guard-data-in-flight")).isEqualTo("first");
    proxy.restore();
    assertThat(next.isValid()).isTrue();
    baton.transaction(Baton.guard(next), Op.setData("/guard-data-in-flight", bytes("second"), -1));
    assertThat(text("/guard-data-in-flight")).isEqualTo("second");
    next.close();
  }

  private static boolean isInMulti(Thread thread) {
    return Arrays.stream(thread.getStackTrace()).anyMatch(frame ->
        frame.getClassName().equals("org.apache.zookeeper.ZooKeeper") && frame.getMethodName().startsWith("multi"));
  }
}
