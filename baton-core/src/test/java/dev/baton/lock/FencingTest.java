package dev.baton.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.ClientClosedException;
import dev.baton.ConnectionState;
import dev.baton.HelperZk;
import dev.baton.TransactionFailedException;
import dev.baton.testkit.FaultProxy;
import dev.baton.testkit.TestCluster;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fencing end to end: a lease's guard in a ZooKeeper transaction, a {@link FencedResource} in
 * this process, and the SQL pattern on an embedded database. The stale holder is made for real
 * where it matters: its session expires behind a black-holed proxy while another client waits,
 * and it writes after the lock has passed on.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FencingTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final byte[] NO_DATA = new byte[0];
  private static TestCluster cluster;
  private static HelperZk raw;
  private static Baton baton;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = TestCluster.standalone();
    raw = HelperZk.connect(cluster.connectString());
    baton = client(cluster.connectString(), Duration.ofSeconds(10));
  }

  @AfterAll
  static void stopCluster() {
    if (baton != null) {
      baton.close();
    }
    if (raw != null) {
      raw.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private static Baton client(String connectString, Duration sessionTimeout) {
    return Baton.builder().connectString(connectString).sessionTimeout(sessionTimeout)
        .connectionTimeout(Duration.ofSeconds(10)).build();
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(String path) throws Exception {
    return new String(raw.data(path), StandardCharsets.UTF_8);
  }

  private static void createRaw(String path, String data) throws Exception {
    raw.zk().create(path, bytes(data), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
  }

  /**
   * Two holders of one lock, the first superseded for real: {@code stale} was held by a client
   * behind {@code proxy} whose session expired while {@code current}'s client waited. When this
   * returns the stale client has a new session and can write again, as a holder waking from a
   * long pause would.
   */
  private record Handover(Lease stale, Lease current) {}

  private static Handover expireHolder(String lockPath, FaultProxy proxy, Baton staleClient) throws Exception {
    Lease stale = staleClient.mutex(lockPath).acquire(WAIT);
    CompletableFuture<Lease> waiting = baton.mutex(lockPath).acquireAsync();
    proxy.blackhole();
    Lease current = waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    proxy.restore();
    await().atMost(WAIT).until(() -> staleClient.connectionState() == ConnectionState.RECONNECTED);
    assertThat(stale.state()).isEqualTo(LeaseState.LOST);
    assertThat(current.fencingToken()).isGreaterThan(stale.fencingToken());
    return new Handover(stale, current);
  }

  // ---- guard + transaction --------------------------------------------------------------------

  @Test
  void transaction_guardOfAHeldLease_appliesTheWrites() throws Exception {
    createRaw("/guarded-held", "before");
    try (Lease lease = baton.mutex("/locks/guard-held").acquire(WAIT)) {
      List<OpResult> results = baton.transaction(Baton.guard(lease),
          Op.setData("/guarded-held", bytes("after"), -1),
          Op.create("/guarded-held/order-1", NO_DATA, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));

      assertThat(results).hasSize(3);
      assertThat(results.get(2)).isInstanceOfSatisfying(OpResult.CreateResult.class,
          created -> assertThat(created.getPath()).isEqualTo("/guarded-held/order-1"));
    }
    assertThat(text("/guarded-held")).isEqualTo("after");
    assertThat(raw.exists("/guarded-held/order-1")).isTrue();
  }

  @Test
  void guard_isACheckOfTheLeaseNode_andTheSameObjectEveryTime() throws Exception {
    Mutex mutex = baton.mutex("/locks/guard-shape");
    try (Lease lease = mutex.acquire(WAIT);
        Lease reentered = mutex.acquire(WAIT)) {
      Op guard = Baton.guard(lease);

      assertThat(guard).isSameAs(Baton.guard(lease));
      assertThat(guard.getType()).isEqualTo(ZooDefs.OpCode.check);
      assertThat(guard.getPath()).startsWith("/locks/guard-shape/");
      assertThat(raw.children("/locks/guard-shape")).containsExactly(guard.getPath().substring("/locks/guard-shape/".length()));
      assertThat(Baton.guard(reentered)).as("a reentrant level shares the node").isEqualTo(guard);
    }
  }

  @Test
  void transaction_guardOfAnExpiredHoldersLease_throwsLeaseLostAndWritesNothing() throws Exception {
    String lockPath = "/locks/guard-expired";
    createRaw("/guarded-expired", "initial");
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0));
        Baton staleClient = client(proxy.connectString(), Duration.ofSeconds(1))) {
      Handover handover = expireHolder(lockPath, proxy, staleClient);
      Op staleGuard = Baton.guard(handover.stale());
      baton.transaction(Baton.guard(handover.current()), Op.setData("/guarded-expired", bytes("new holder"), -1));

      assertThatThrownBy(() -> staleClient.transaction(staleGuard,
              Op.setData("/guarded-expired", bytes("stale holder"), -1)))
          .isInstanceOfSatisfying(LeaseLostException.class, e -> {
            assertThat(e.path()).isEqualTo(lockPath);
            assertThat(e.nodePath()).isEqualTo(staleGuard.getPath());
          })
          .hasMessageContaining(lockPath)
          .hasMessageContaining("not applied");
      assertThat(text("/guarded-expired")).isEqualTo("new holder");
      handover.stale().close();
      handover.current().close();
    }
  }

  @Test
  void guard_ofAClosedLease_throwsIllegalState_andAnEarlierGuardFailsTheTransaction() throws Exception {
    Lease lease = baton.mutex("/locks/guard-closed").acquire(WAIT);
    Op guard = Baton.guard(lease);
    lease.close();

    assertThatThrownBy(() -> Baton.guard(lease)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("/locks/guard-closed");
    assertThatThrownBy(() -> baton.transaction(guard,
            Op.create("/guarded-closed", NO_DATA, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT)))
        .isInstanceOf(LeaseLostException.class);
    assertThat(raw.exists("/guarded-closed")).isFalse();
  }

  @Test
  void transaction_namespacedClient_addsTheNamespaceToOperationsAndRemovesItFromResults() throws Exception {
    try (Baton namespaced = Baton.builder().connectString(cluster.connectString()).namespace("/apps/fenced").build();
        Lease lease = namespaced.mutex("/locks/ns").acquire(WAIT)) {
      assertThat(Baton.guard(lease).getPath()).startsWith("/locks/ns/");

      List<OpResult> results = namespaced.transaction(Baton.guard(lease),
          Op.create("/orders", NO_DATA, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT),
          Op.create("/orders/o-", bytes("1"), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT_SEQUENTIAL));

      assertThat(results.get(2)).isInstanceOfSatisfying(OpResult.CreateResult.class,
          created -> assertThat(created.getPath()).isEqualTo("/orders/o-0000000000"));
      assertThat(raw.exists("/apps/fenced/orders/o-0000000000")).isTrue();
      assertThat(raw.exists("/orders")).isFalse();
    }
  }

  @Test
  void transaction_versionConflict_throwsTransactionFailedNamingTheOperation_andAppliesNothing() throws Exception {
    createRaw("/tx-conflict", "v0");

    assertThatThrownBy(() -> baton.transaction(
            Op.create("/tx-conflict/child", NO_DATA, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT),
            Op.setData("/tx-conflict", bytes("v1"), 5)))
        .isInstanceOfSatisfying(TransactionFailedException.class, e -> {
          assertThat(e.failedIndex()).isEqualTo(1);
          assertThat(e.path()).isEqualTo("/tx-conflict");
          assertThat(e.code()).isEqualTo(KeeperException.Code.BADVERSION);
        })
        .hasMessageContaining("operation #1 (setData /tx-conflict)")
        .hasMessageContaining("changed concurrently");
    assertThat(raw.exists("/tx-conflict/child")).as("all or nothing").isFalse();
    assertThat(text("/tx-conflict")).isEqualTo("v0");
  }

  @Test
  void transaction_badInput_isRefusedBeforeAnythingIsSent() throws Exception {
    Set<String> before = raw.tree();

    assertThatThrownBy(() -> baton.transaction((Op[]) null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> baton.transaction(Op.check("/a", -1), null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("must not be null");
    assertThatThrownBy(() -> baton.transaction(Op.create("no-slash", NO_DATA, ZooDefs.Ids.OPEN_ACL_UNSAFE,
            CreateMode.PERSISTENT)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("operation #0 (create no-slash)")
        .hasMessageContaining("'no-slash' is not a valid ZooKeeper path");
    assertThatThrownBy(() -> baton.transaction(Op.getData("/zookeeper")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is a read");
    assertThat(baton.transaction()).isEmpty();
    Baton closed = client(cluster.connectString(), Duration.ofSeconds(10));
    closed.close();
    assertThatThrownBy(() -> closed.transaction(Op.check("/", -1))).isInstanceOf(ClientClosedException.class);
    assertThat(raw.tree()).isSubsetOf(before);
  }

  // ---- FencedResource -------------------------------------------------------------------------

  @Test
  void fencedResourceWrite_newerAndEqualTokens_areAccepted() {
    FencedResource<List<Long>> log = new FencedResource<>("log", new ArrayList<>());

    log.write(10, l -> l.add(10L));
    log.write(10, l -> l.add(10L)); // the same holder again
    log.write(25, l -> l.add(25L));

    List<Long> written = log.read(List::copyOf);
    assertThat(written).containsExactly(10L, 10L, 25L);
    assertThat(log.highestToken()).hasValue(25);
  }

  @Test
  void fencedResourceWrite_lowerToken_throwsStaleNamingBothTokens_andDoesNotRun() {
    FencedResource<List<Long>> log = new FencedResource<>("inventory", new ArrayList<>());
    log.write(25, l -> l.add(25L));
    AtomicInteger ran = new AtomicInteger();

    assertThatThrownBy(() -> log.write(24, l -> ran.incrementAndGet()))
        .isInstanceOfSatisfying(StaleTokenException.class, e -> {
          assertThat(e.token()).isEqualTo(24);
          assertThat(e.highestToken()).isEqualTo(25);
          assertThat(e.resource()).isEqualTo("inventory");
        })
        .hasMessageContaining("24").hasMessageContaining("25").hasMessageContaining("inventory");
    assertThat(ran).hasValue(0);
    assertThat(log.highestToken()).hasValue(25);
  }

  @Test
  void fencedResourceWrite_actionThrows_tokenStillFencesOlderHolders() {
    FencedResource<List<Long>> log = new FencedResource<>("log", new ArrayList<>());

    assertThatThrownBy(() -> log.write(30, l -> {
      throw new IllegalStateException("half done");
    })).hasMessage("half done");
    assertThatThrownBy(() -> log.write(29, l -> l.add(29L))).isInstanceOf(StaleTokenException.class);
    int size = log.compute(30, List::size);
    assertThat(size).isZero();
  }

  @Test
  void fencedResource_badInput_throwsNamingTheArgument() {
    assertThatThrownBy(() -> new FencedResource<>(null, List.of())).hasMessageContaining("name");
    assertThatThrownBy(() -> new FencedResource<>("x", null)).hasMessageContaining("resource");
    FencedResource<List<Long>> log = new FencedResource<>("log", new ArrayList<>());
    assertThatThrownBy(() -> log.write(1, null)).hasMessageContaining("action");
    assertThat(log.highestToken()).as("a refused call records nothing").isEmpty();
  }

  @Test
  void fencedResourceWrite_concurrentWriters_acceptedTokensNeverGoDown() throws Exception {
    // An unsynchronized list: the resource's own lock is all that keeps the writers apart.
    FencedResource<List<Long>> log = new FencedResource<>("log", new ArrayList<>());
    AtomicInteger refused = new AtomicInteger();
    int writers = 8;
    int writes = 2_000;
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    List<Future<?>> done = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      done.add(pool.submit(() -> {
        for (int i = 0; i < writes; i++) {
          long token = ThreadLocalRandom.current().nextLong(1, 500);
          try {
            log.write(token, l -> l.add(token));
          } catch (StaleTokenException e) {
            refused.incrementAndGet();
          }
        }
      }));
    }
    for (Future<?> future : done) {
      future.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }
    pool.shutdown();

    List<Long> accepted = log.read(List::copyOf);
    assertThat(accepted).isSorted();
    assertThat(accepted.size() + refused.get()).isEqualTo(writers * writes);
    assertThat(log.highestToken()).hasValue(accepted.get(accepted.size() - 1));
  }

  @Test
  void fencedResourceWrite_holderSupersededAfterExpiry_isRefused() throws Exception {
    FencedResource<List<String>> orders = new FencedResource<>("orders", new ArrayList<>());
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0));
        Baton staleClient = client(proxy.connectString(), Duration.ofSeconds(1))) {
      Handover handover = expireHolder("/locks/fenced-resource", proxy, staleClient);
      orders.write(handover.stale().fencingToken(), o -> o.add("first holder, before its pause"));
      orders.write(handover.current().fencingToken(), o -> o.add("new holder"));

      assertThatThrownBy(() -> orders.write(handover.stale().fencingToken(), o -> o.add("stale holder")))
          .isInstanceOf(StaleTokenException.class)
          .hasMessageContaining(Long.toString(handover.stale().fencingToken()))
          .hasMessageContaining(Long.toString(handover.current().fencingToken()));
      List<String> written = orders.read(List::copyOf);
      assertThat(written).containsExactly("first holder, before its pause", "new holder");
      handover.stale().close();
      handover.current().close();
    }
  }

  // ---- the SQL pattern ------------------------------------------------------------------------

  /** FencedResource's Javadoc: the decrement with the token as part of the condition. */
  private static int sell(Connection db, int id, long token) throws Exception {
    try (PreparedStatement update = db.prepareStatement(
        "UPDATE stock SET qty = qty - 1, fence = ? WHERE id = ? AND fence <= ?")) {
      update.setLong(1, token);
      update.setInt(2, id);
      update.setLong(3, token);
      return update.executeUpdate();
    }
  }

  private static long[] row(Connection db, int id) throws Exception {
    try (Statement query = db.createStatement();
        ResultSet rs = query.executeQuery("SELECT qty, fence FROM stock WHERE id = " + id)) {
      assertThat(rs.next()).isTrue();
      return new long[] {rs.getLong(1), rs.getLong(2)};
    }
  }

  @Test
  void sqlFencedUpdate_holderWhoseLeaseExpired_updatesNoRow_afterTheNewHolderWrote() throws Exception {
    try (Connection db = DriverManager.getConnection("jdbc:h2:mem:fencing-" + UUID.randomUUID());
        Statement ddl = db.createStatement();
        FaultProxy proxy = FaultProxy.start(cluster.address(0));
        Baton staleClient = client(proxy.connectString(), Duration.ofSeconds(1))) {
      ddl.execute("CREATE TABLE stock (id INT PRIMARY KEY, qty INT NOT NULL, fence BIGINT NOT NULL DEFAULT 0)");
      ddl.execute("INSERT INTO stock (id, qty) VALUES (42, 10)");

      Handover handover = expireHolder("/locks/sku-42", proxy, staleClient);
      long newToken = handover.current().fencingToken();
      assertThat(sell(db, 42, newToken)).isEqualTo(1);
      assertThat(sell(db, 42, newToken)).as("the same holder may write again").isEqualTo(1);

      assertThat(sell(db, 42, handover.stale().fencingToken())).as("the stale holder's late write").isZero();
      assertThat(row(db, 42)).containsExactly(8, newToken);
      handover.stale().close();
      handover.current().close();
    }
  }
}
