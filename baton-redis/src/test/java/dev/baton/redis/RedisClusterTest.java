package dev.baton.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.BatonException;
import dev.baton.ConnectionException;
import dev.baton.ConnectionState;
import dev.baton.embedded.EmbeddedRedis;
import dev.baton.embedded.EmbeddedRedisCluster;
import dev.baton.lock.Lease;
import dev.baton.lock.LeaseState;
import dev.baton.lock.Mutex;
import dev.baton.testkit.MutualExclusionChecker;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.SlotHash;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** The same Mutex on a real three-master Redis Cluster, with locks on every master. */
class RedisClusterTest {
  private static EmbeddedRedisCluster cluster;
  private static final Map<EmbeddedRedis, RedisClient> rawClients = new HashMap<>();
  private static final Map<EmbeddedRedis, StatefulRedisConnection<String, String>> rawConnections = new HashMap<>();
  /** For each master, in node order, a lock name whose keys that master holds. */
  private static final List<String> namePerMaster = new ArrayList<>();
  private final List<AutoCloseable> closeAfterTest = new ArrayList<>();
  private int round;

  @BeforeAll
  static void startCluster() {
    cluster = EmbeddedRedis.cluster(3);
    for (EmbeddedRedis node : cluster.nodes()) {
      RedisClient client = RedisClient.create(node.uri());
      rawClients.put(node, client);
      rawConnections.put(node, client.connect());
      for (int i = 0; ; i++) {
        String name = "lock-" + i;
        if (cluster.nodeForSlot(SlotHash.getSlot(name)) == node) {
          namePerMaster.add(name);
          break;
        }
      }
    }
  }

  @AfterAll
  static void stopCluster() {
    rawConnections.values().forEach(StatefulRedisConnection::close);
    rawClients.values().forEach(client -> client.shutdown(0, 1, TimeUnit.SECONDS));
    if (cluster != null) {
      cluster.close();
    }
  }

  @AfterEach
  void closeClients() throws Exception {
    for (AutoCloseable closeable : closeAfterTest) {
      closeable.close();
    }
    for (StatefulRedisConnection<String, String> connection : rawConnections.values()) {
      connection.sync().flushall();
    }
  }

  /** Plain commands on one node, for the keys of its own slots. */
  private static RedisCommands<String, String> raw(EmbeddedRedis node) {
    return rawConnections.get(node).sync();
  }

  private RedisBaton client(RedisBaton.Builder builder) {
    RedisBaton baton = builder.build();
    closeAfterTest.add(0, baton);
    return baton;
  }

  /** A client with a short TTL; every other one is seeded with a single node, to find the rest itself. */
  private RedisBaton client() {
    EmbeddedRedis seed = cluster.nodes().get(round++ % cluster.nodes().size());
    String uri = round % 2 == 0 ? cluster.uri() : "redis-cluster://" + seed.host() + ":" + seed.port();
    return client(RedisBaton.builder().uri(uri).leaseTtl(Duration.ofMillis(1500))
        .renewEvery(Duration.ofMillis(300)).waiterLease(Duration.ofSeconds(3)));
  }

  @Test
  void locksOnEveryMaster_excludeEachOther_andTheirTokensGrow_underContention() throws Exception {
    Map<String, MutualExclusionChecker> checkers = new HashMap<>();
    List<Callable<Void>> workers = new ArrayList<>();
    for (int c = 0; c < 3; c++) {
      RedisBaton baton = client();
      for (String name : namePerMaster) {
        MutualExclusionChecker checker = checkers.computeIfAbsent(name, n -> MutualExclusionChecker.exclusive());
        Mutex mutex = baton.mutex(name);
        for (int t = 0; t < 2; t++) {
          workers.add(Workers.batonLoop(mutex, checker, "client-" + c, 15));
        }
      }
    }
    Workers.runAll(workers);
    for (int i = 0; i < namePerMaster.size(); i++) {
      String name = namePerMaster.get(i);
      MutualExclusionChecker checker = checkers.get(name);
      checker.assertNoViolations();
      assertThat(checker.sectionCount()).as(name).isEqualTo(3 * 2 * 15);
      // The fencing counter lives on the master of the lock's slot, nowhere else.
      EmbeddedRedis master = cluster.nodes().get(i);
      assertThat(raw(master).get("baton_lock_token:{" + name + "}")).as(name).isNotNull();
    }
  }

  @Test
  void aRelease_wakesTheWaiter_throughPubSub_evenWhenTheLocksMasterIsNotTheSubscribedNode() throws Exception {
    // A 60 s waiter lease: the waiter's own re-check comes after 20 s at the earliest.
    RedisBaton holderClient = client(RedisBaton.builder().uri(cluster.uri()).waiterLease(Duration.ofSeconds(60)));
    RedisBaton waiterClient = client(RedisBaton.builder().uri(cluster.uri()).waiterLease(Duration.ofSeconds(60)));
    List<EmbeddedRedis> subscribedOn = new ArrayList<>();
    for (int i = 0; i < namePerMaster.size(); i++) {
      String name = namePerMaster.get(i);
      Lease held = holderClient.mutex(name).acquire();
      CompletableFuture<Lease> waiting = waiterClient.mutex(name).acquireAsync();
      await().until(() -> waiterClient.mutex(name).waiters().size() == 1);
      String channel = "baton_lock_channel:{" + name + "}";
      // The waiter queues, then subscribes, then tries once more: release once it listens.
      await().until(() -> cluster.nodes().stream().anyMatch(node -> raw(node).pubsubChannels(channel).contains(channel)));
      cluster.nodes().stream().filter(node -> raw(node).pubsubChannels(channel).contains(channel))
          .forEach(subscribedOn::add);
      held.close();
      try (Lease next = waiting.get(15, TimeUnit.SECONDS)) {
        assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
      }
    }
    // One subscription connection, on one node, heard the releases published on all three masters.
    assertThat(subscribedOn).hasSize(3).allMatch(node -> node == subscribedOn.get(0));
  }

  @Test
  void holderAndWaiters_areReadFromTheLocksMaster() throws Exception {
    String name = namePerMaster.get(2);
    Mutex mutex = client().mutex(name);
    Lease lease = mutex.acquire();
    assertThat(raw(cluster.nodes().get(2)).get(name)).contains("\"token\":" + lease.fencingToken());
    LockReads.assertHolderAndWaitersInOrder(mutex, lease, client().mutex(name), client().mutex(name));
  }

  @Test
  void anUnreachableSeed_failsAtConnect_namingTheAddress() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    String uri = "redis-cluster://127.0.0.1:" + closedPort;
    assertThatThrownBy(() -> RedisBaton.builder().uri(uri).connectTimeout(Duration.ofSeconds(2)).build())
        .isInstanceOf(ConnectionException.class)
        .hasMessageContaining("Redis Cluster at redis-cluster://127.0.0.1:" + closedPort)
        .hasMessageContaining("2000 ms");
  }

  @Test
  @Timeout(30) // a hang is the failure; it fails within about the connect timeout
  void aSeedThatAcceptsButNeverAnswers_failsAtConnect_namingTheAddress_ratherThanHanging() throws Exception {
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      String uri = "redis-cluster://127.0.0.1:" + silent.getLocalPort(); // the kernel accepts; nobody reads
      assertThatThrownBy(() -> RedisBaton.builder().uri(uri).connectTimeout(Duration.ofSeconds(1))
          .commandTimeout(Duration.ofSeconds(1)).build())
          .isInstanceOf(ConnectionException.class)
          .hasMessageContaining("127.0.0.1:" + silent.getLocalPort());
    }
  }

  @Test
  void aPlainRedisUri_ofOneClusterNode_failsALockOnAnotherMaster_sayingToNameTheCluster() {
    EmbeddedRedis first = cluster.nodes().get(0);
    RedisBaton single = client(RedisBaton.builder().uri(first.uri()));
    assertThatThrownBy(() -> single.mutex(namePerMaster.get(1)).acquire(Duration.ofSeconds(5)))
        .isInstanceOf(BatonException.class)
        .hasMessageContaining("MOVED")
        .hasMessageContaining("redis-cluster://");
  }

  @Test
  void badClusterUrisAndNamesSpreadOverSlots_areRefused_namingThem() {
    assertThatThrownBy(() -> RedisBaton.connect("redis-cluster://"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'redis-cluster://'");
    assertThatThrownBy(() -> RedisBaton.connect("redis-cluster://[oops"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("redis-cluster://[oops");

    RedisBaton baton = client();
    // "a{b" has no closing brace: the lock key hashes whole, the others by "baton_lock_...:a{b".
    assertThatThrownBy(() -> baton.mutex("a{b")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'a{b'").hasMessageContaining("slots");
    assertThat(baton.mutex("orders{eu}").tryAcquire(Duration.ZERO)).isPresent();
  }

  @Test
  void aMasterRestarted_suspendsTheClientWhileOthersStayUp_thenReconnected() {
    RedisBaton baton = client();
    baton.mutex(namePerMaster.get(0)).acquire(Duration.ofSeconds(20)).close(); // a connection to each master
    baton.mutex(namePerMaster.get(1)).acquire(Duration.ofSeconds(20)).close();
    List<ConnectionState> heard = new CopyOnWriteArrayList<>();
    baton.addConnectionStateListener(heard::add);

    cluster.nodes().get(0).restart();

    await().atMost(Duration.ofSeconds(20)).until(() -> heard.contains(ConnectionState.SUSPENDED));
    await().atMost(Duration.ofSeconds(20)).until(() -> baton.connectionState() == ConnectionState.RECONNECTED);
    await().atMost(Duration.ofSeconds(20)).until(() -> heard.get(heard.size() - 1) == ConnectionState.RECONNECTED);
    assertThat(heard.get(0)).as("one master down suspends the client").isEqualTo(ConnectionState.SUSPENDED);
    await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> cluster.nodes().stream()
        .allMatch(node -> raw(node).clusterInfo().contains("cluster_state:ok")));
    try (Lease again = baton.mutex(namePerMaster.get(0)).acquire(Duration.ofSeconds(20))) {
      assertThat(again.isValid()).isTrue();
    }
  }

  @Test
  void aMasterRestartedEmpty_endsItsLeaseAsLost_whileLocksOnOtherMastersStayHeld_andTokensStillGrow() {
    RedisBaton baton = client();
    Lease onRestarted = baton.mutex(namePerMaster.get(0)).acquire();
    Lease onOther = baton.mutex(namePerMaster.get(1)).acquire();
    EmbeddedRedis master = cluster.nodes().get(0);

    master.restart(); // the same node id and slots (its nodes.conf), none of its keys

    await().atMost(Duration.ofSeconds(20)).until(() -> onRestarted.state() == LeaseState.LOST);
    await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> cluster.nodes().stream()
        .allMatch(node -> raw(node).clusterInfo().contains("cluster_state:ok")));
    await().atMost(Duration.ofSeconds(20)).until(() -> onOther.state() == LeaseState.HELD);
    assertThat(raw(cluster.nodes().get(1)).get(namePerMaster.get(1))).contains("\"token\":" + onOther.fencingToken());
    try (Lease next = client().mutex(namePerMaster.get(0)).acquire(Duration.ofSeconds(20))) {
      assertThat(next.fencingToken()).isGreaterThan(onRestarted.fencingToken());
    }
    onRestarted.close();
    onOther.close();
  }

  @Test
  void inRedissonsLayout_aRedissonClusterClientsUnlock_handsTheLockToABatonWaiter_throughTheChannel() throws Exception {
    String name = namePerMaster.get(1);
    Config config = new Config();
    config.useClusterServers().addNodeAddress(cluster.nodes().stream()
        .map(node -> "redis://" + node.host() + ":" + node.port()).toArray(String[]::new));
    RedissonClient redisson = Redisson.create(config);
    ExecutorService redissonThread = Executors.newSingleThreadExecutor(); // RLock belongs to a thread
    try {
      RLock rlock = redisson.getLock(name);
      redissonThread.submit(() -> rlock.lock()).get(10, TimeUnit.SECONDS);
      // A 60 s waiter lease: the waiter's own re-check comes after 20 s at the earliest.
      RedisBaton baton = client(RedisBaton.builder().uri(cluster.uri()).waiterLease(Duration.ofSeconds(60)));
      Mutex mutex = baton.mutex(name, RedisMutexOptions.defaults().withLayout(RedisLockLayout.REDISSON));
      assertThat(mutex.tryAcquire(Duration.ZERO)).isEmpty();
      CompletableFuture<Lease> waiting = mutex.acquireAsync();
      await().until(() -> mutex.waiters().size() == 1);
      String channel = "redisson_lock__channel:{" + name + "}";
      await().until(() -> cluster.nodes().stream().anyMatch(node -> raw(node).pubsubChannels(channel).contains(channel)));

      redissonThread.submit(rlock::unlock).get(10, TimeUnit.SECONDS);

      try (Lease lease = waiting.get(15, TimeUnit.SECONDS)) {
        assertThat(redissonThread.submit(() -> rlock.tryLock()).get(10, TimeUnit.SECONDS)).isFalse();
        assertThat(mutex.holder().orElseThrow().fencingToken()).isEqualTo(lease.fencingToken());
      }
    } finally {
      redissonThread.shutdownNow();
      redisson.shutdown();
    }
  }
}
