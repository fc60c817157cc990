package dev.baton.cli.demo;

import dev.baton.Baton;
import dev.baton.BatonException;
import dev.baton.cli.command.CliException;
import dev.baton.cli.command.DurationConverter;
import dev.baton.embedded.EmbeddedRedis;
import dev.baton.lock.Lease;
import dev.baton.redis.LockNotReplicatedException;
import dev.baton.redis.RedisBaton;
import dev.baton.redis.RedisMutexOptions;
import dev.baton.testkit.FaultProxy;
import dev.baton.testkit.TestCluster;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The second failure case of {@code baton demo --compare}: the server that granted A's lock fails
 * right after granting it. On ZooKeeper the ensemble's leader is killed while A holds the lock: the
 * lock node was committed on a quorum before A heard of it, so it survives, and B must wait. On
 * Redis the master is killed before its replica got the grant (the replication link runs through
 * a {@link FaultProxy} that drops its bytes meanwhile, standing for replication lag: a paused
 * replica would not do, since the kernel buffers what is sent to it), and Sentinel promotes the
 * replica: B is granted the same lock while A's client still says it holds it. With {@code WAIT 1} A's acquisition fails instead,
 * since no replica acknowledged it. Either way A then writes what it computed: the fence decides.
 */
public final class FailoverCase {
  static final String SCENARIO = "server fails right after the grant";
  private static final Duration SETTLE = Duration.ofSeconds(30);
  private static final Duration ACQUIRE_TIMEOUT = Duration.ofSeconds(30);
  private static final String MASTER_NAME = "baton-compare";

  private FailoverCase() {}

  /** On a 3-server ZooKeeper ensemble whose leader is killed while A holds the lock. */
  static ComparisonRow zooKeeper() {
    String lock = "/baton-compare/failover/lock";
    String stockPath = "/baton-compare/failover/stock";
    // Sessions of 10 s, as in production; the servers' default cap at this tick would be 2 s.
    try (TestCluster cluster = TestCluster.builder().ensemble(3).property("maxSessionTimeout", "30000").start();
         Baton a = Baton.builder().connectString(cluster.connectString()).sessionTimeout(Duration.ofSeconds(10)).build();
         Baton b = Baton.builder().connectString(cluster.connectString()).sessionTimeout(Duration.ofSeconds(10)).build();
         StockClient stock = StockClient.connect(cluster.connectString(), Duration.ofSeconds(15))) {
      stock.create(stockPath, 10);
      Lease leaseA = a.mutex(lock).acquire(ACQUIRE_TIMEOUT);
      StockStore.Stock seenByA = stock.readStock(stockPath);
      int killed = cluster.stopLeader();
      Optional<Lease> leaseB = b.mutex(lock).tryAcquire(Duration.ofSeconds(3));
      long overlaps = leaseB.isPresent() && StalledHolderCase.overlaps(leaseA, Instant.now()) ? 1 : 0;
      String aState = leaseA.state().toString();
      leaseB.ifPresent(held -> retried(() -> {
        StockStore.Stock seenByB = stock.readStock(stockPath);
        return stock.writeFenced(stockPath, seenByB.count() - 1, held.fencingToken(), seenByB);
      }));
      boolean aWrote = retried(() -> stock.writeFenced(stockPath, seenByA.count() - 1, leaseA.fencingToken(), seenByA));
      leaseA.close();
      leaseB.ifPresent(Lease::close);
      String note = String.format("leader (server %d) killed while A held; B's tryAcquire(3 s) %s; A's lease %s,"
          + " its write %s", killed, leaseB.isPresent() ? "GOT THE LOCK" : "got nothing", aState,
          aWrote ? "landed" : "was refused by the fence");
      return ComparisonRow.failureCase(SCENARIO, "ZooKeeper (3 servers)", overlaps, aWrote ? 0 : 1, note);
    }
  }

  /**
   * On a Redis master with one replica and a Sentinel; with {@code replicaAcks} 1, A's grant waits
   * for the replica's acknowledgement ({@code WAIT}).
   */
  static ComparisonRow redis(int replicaAcks) {
    String lock = "baton-compare:failover:lock";
    String stockKey = "baton-compare:failover:stock";
    RedisMutexOptions options = replicaAcks == 0 ? RedisMutexOptions.defaults()
        : RedisMutexOptions.defaults().withReplicaAcks(replicaAcks, Duration.ofSeconds(1));
    String backend = replicaAcks == 0 ? "Redis + Sentinel" : "Redis + Sentinel, WAIT " + replicaAcks;
    try (EmbeddedRedis master = EmbeddedRedis.start();
         FaultProxy link = FaultProxy.start(new InetSocketAddress(master.host(), master.port()));
         EmbeddedRedis replica = EmbeddedRedis.builder()
             .arg("--replicaof", master.host(), Integer.toString(link.port())).start();
         EmbeddedRedis sentinel = EmbeddedRedis.sentinel(master, MASTER_NAME)) {
      String viaSentinel = "redis-sentinel://" + sentinel.host() + ":" + sentinel.port() + "#" + MASTER_NAME;
      StockStore.Stock seenByA;
      long tokenA = 0;
      Lease leaseA = null;
      String refusal = null;
      try (StockStore stock = RedisStock.connect(master.uri(), Duration.ofSeconds(5))) {
        stock.create(stockKey, 10);
        awaitUntil("the replica to copy the stock and Sentinel to see it",
            () -> has(replica, stockKey) && sentinelSeesReplica(sentinel));
        seenByA = stock.readStock(stockKey);
      }
      // Created before the failover, so it must follow Sentinel to the new master, as a service would.
      RedisBaton a = RedisBaton.builder().uri(viaSentinel).connectTimeout(Duration.ofSeconds(5)).build();
      try {
        link.blackhole(); // replication lag: the replica will not see A's grant
        try {
          leaseA = a.mutex(lock, options).acquire(ACQUIRE_TIMEOUT);
          tokenA = leaseA.fencingToken();
        } catch (LockNotReplicatedException e) {
          refusal = "A's acquisition FAILED (" + e.getMessage().replaceAll("\\.$", "") + ")";
        }
        master.kill();
        awaitUntil("Sentinel to promote the replica", () -> masterPort(sentinel) == replica.port());
        try (RedisBaton b = RedisBaton.builder().uri(viaSentinel).connectTimeout(Duration.ofSeconds(5)).build();
             StockStore stock = RedisStock.connect(replica.uri(), Duration.ofSeconds(5))) {
          // B needs no acknowledgement: the only replica is the master now.
          Lease leaseB = b.mutex(lock).acquire(ACQUIRE_TIMEOUT);
          long overlaps = leaseA != null && StalledHolderCase.overlaps(leaseA, Instant.now()) ? 1 : 0;
          String aState = leaseA == null ? "none" : leaseA.state().toString();
          StockStore.Stock seenByB = stock.readStock(stockKey);
          stock.writeFenced(stockKey, seenByB.count() - 1, leaseB.fencingToken(), seenByB);
          boolean aWrote = leaseA != null && stock.writeFenced(stockKey, seenByA.count() - 1, tokenA, seenByA);
          long refused = leaseA != null && !aWrote ? 1 : 0;
          leaseB.close();
          String note = refusal != null
              ? refusal + "; B got the lock after the failover, alone"
              : String.format("master killed before the replica got A's grant; B got the lock while A's lease"
                  + " was %s, valid until %s by its TTL; A's late write %s (tokens A %d, B %d)", aState,
                  DurationConverter.seconds(Duration.between(Instant.now(), leaseA.validUntil())) + " later",
                  aWrote ? "LANDED, undoing B's sale" : "refused by the fence", tokenA, leaseB.fencingToken());
          return ComparisonRow.failureCase(SCENARIO, backend, overlaps, refused, note);
        }
      } finally {
        if (leaseA != null) {
          leaseA.close();
        }
        a.close();
      }
    }
  }

  private static boolean has(EmbeddedRedis server, String key) {
    RedisClient client = RedisClient.create(server.uri());
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      return connection.sync().exists(key) == 1L;
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
    }
  }

  private static boolean sentinelSeesReplica(EmbeddedRedis sentinel) {
    RedisClient client = RedisClient.create(sentinel.uri());
    try (StatefulRedisSentinelConnection<String, String> connection = client.connectSentinel()) {
      return connection.sync().info("sentinel").contains("slaves=1");
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
    }
  }

  private static int masterPort(EmbeddedRedis sentinel) {
    RedisClient client = RedisClient.create(sentinel.uri());
    try (StatefulRedisSentinelConnection<String, String> connection = client.connectSentinel()) {
      SocketAddress address = connection.sync().getMasterAddrByName(MASTER_NAME);
      return address instanceof InetSocketAddress inet ? inet.getPort() : -1;
    } catch (RuntimeException e) {
      return -1; // Sentinel busy with the failover
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
    }
  }

  /** Polls {@code condition} every 50 ms until it holds, failing the demo after {@link #SETTLE}. */
  private static void awaitUntil(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + SETTLE.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new CliException("Gave up waiting " + DurationConverter.seconds(SETTLE) + " for " + what);
      }
      LockSupport.parkNanos(50_000_000);
    }
  }

  /**
   * A ZooKeeper write while the ensemble elects a new leader may fail with a lost connection; the
   * stock's fenced write is safe to send again (it checks the fence and the node's version).
   */
  private static boolean retried(BooleanSupplier write) {
    long deadline = System.nanoTime() + SETTLE.toNanos();
    while (true) {
      try {
        return write.getAsBoolean();
      } catch (CliException | BatonException e) {
        if (System.nanoTime() - deadline > 0) {
          throw e;
        }
        LockSupport.parkNanos(100_000_000);
      }
    }
  }
}
