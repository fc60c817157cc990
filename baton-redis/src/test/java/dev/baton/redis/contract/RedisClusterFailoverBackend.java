package dev.baton.redis.contract;

import dev.baton.Coordinator;
import dev.baton.embedded.EmbeddedRedis;
import dev.baton.embedded.EmbeddedRedisCluster;
import dev.baton.redis.RedisBaton;
import dev.baton.testkit.contract.ContractBackend;
import dev.baton.testkit.contract.Feature;
import dev.baton.testkit.contract.Promise;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A Redis Cluster as it fails over, for {@link dev.baton.testkit.contract.FailoverContract} and the
 * chaos run: per test, an {@link EmbeddedRedisCluster} of three masters, each with a replica (the
 * chaos run's recipes spread over all three slot ranges). Clients connect with the cluster URI, with
 * the lease TTL and renewal of {@link RedisFailoverBackend}, and follow a failover by Lettuce's
 * topology refresh (on the killed node's failed reconnects, on a redirect, or periodically).
 *
 * <p>{@link #failOver()} kills a master that holds keys (in turn, when several do: the chaos run's
 * failovers strike each recipe's master by rotation) and promotes its replica with {@code CLUSTER
 * FAILOVER TAKEOVER} ({@link EmbeddedRedisCluster#failOver}). A cluster replica learns its master's
 * address from the cluster bus, not from {@code replicaof}, so it cannot replicate through a {@link
 * dev.baton.testkit.FaultProxy} that clients bypass; {@link #holdBackReplication()} instead
 * breaks the replica's link from its own side: once the replica has every write so far, it is given
 * a {@code masterauth} the master refuses and its link to the master is killed, so its reconnects
 * fail while the master and the clients go on. The promoted master gets a new replica before the
 * next hold-back, so the cluster can fail over again.
 *
 * <p>It offers what {@link RedisBackend} offers and declares what that does not promise, and
 * {@link Promise#GRANT_KEPT_ACROSS_FAILOVER}: replication is asynchronous, and the default mutex
 * does not {@code WAIT} for a replica after a grant. Clients talk to the masters directly:
 * {@link #cutLink}, {@link #delayLink}, {@link #restoreLink} and {@link #restartServer} are refused,
 * and declared so.
 */
public final class RedisClusterFailoverBackend implements ContractBackend, BeforeEachCallback, AfterEachCallback {
  private static final int MASTERS = 3;
  /** Not the master's password (it has none): the replica's handshake fails while it is set. */
  private static final String REFUSED_AUTH = "baton-replication-held-back";
  private static final Duration LEASE_TTL = Duration.ofMillis(1500);
  private static final Duration RENEW_EVERY = Duration.ofMillis(300);
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);
  private static final Duration TOPOLOGY_WAIT = Duration.ofSeconds(30);
  private static final RedisBackend SINGLE_SERVER = new RedisBackend();

  private final List<Coordinator> clients = new ArrayList<>();
  private EmbeddedRedisCluster cluster;
  /** The master the next failover kills, chosen by the hold-back before it. */
  private EmbeddedRedis target;
  private int failovers;
  /** The replicas being added, the promoted masters' after a failover; every hold-back waits for them first. */
  private List<CompletableFuture<EmbeddedRedis>> joining = new ArrayList<>();

  @Override
  public String name() {
    return "redis";
  }

  @Override
  public Set<Feature> features() {
    return SINGLE_SERVER.features();
  }

  @Override
  public Set<Promise> notPromised() {
    EnumSet<Promise> notPromised = EnumSet.of(Promise.GRANT_KEPT_ACROSS_FAILOVER);
    notPromised.addAll(SINGLE_SERVER.notPromised());
    return notPromised;
  }

  @Override
  public Duration leaseTimeout() {
    return LEASE_TTL;
  }

  @Override
  public synchronized Coordinator newClient(Duration leaseTtl) {
    Duration renew = leaseTtl.dividedBy(5).compareTo(RENEW_EVERY) < 0 ? leaseTtl.dividedBy(5) : RENEW_EVERY;
    RedisBaton client = RedisBaton.builder().uri(cluster.uri())
        .leaseTtl(leaseTtl).renewEvery(renew).commandTimeout(COMMAND_TIMEOUT)
        .connectTimeout(Duration.ofSeconds(10)).waiterLease(Duration.ofSeconds(3)).build();
    clients.add(client);
    return client;
  }

  /**
   * Chooses the master the next failover kills, waits until its replica has every write so far,
   * then breaks the replica's link to it (see the class comment): writes from now on reach the
   * master only.
   */
  @Override
  public void holdBackReplication() {
    awaitReplicas();
    target = nextTarget();
    long acknowledged = on(target, c -> c.sync().waitForReplication(1, TOPOLOGY_WAIT.toMillis()));
    EmbeddedRedis replica = cluster.replicasOf(target).get(0);
    if (acknowledged < 1) {
      throw new IllegalStateException("the replica did not catch up with the master within " + TOPOLOGY_WAIT
          + "; the replica says:\n" + on(replica, c -> c.sync().info("replication")) + "\nthe master says:\n"
          + on(target, c -> c.sync().info("replication")));
    }
    on(replica, c -> c.sync().configSet("masterauth", REFUSED_AUTH));
    on(replica, c -> c.sync().clientKill(KillArgs.Builder.typeMaster()));
    Awaitility.await("the replica's link to its master down").atMost(TOPOLOGY_WAIT)
        .pollInterval(Duration.ofMillis(20)).ignoreExceptions()
        .until(() -> on(replica, c -> c.sync().info("replication")).contains("master_link_status:down"));
  }

  /**
   * Kills the master chosen by the last {@link #holdBackReplication()} (else the next in turn) and
   * has its replica take its slots over; returns once every remaining node names the promoted
   * replica as their master. The clients find it by themselves.
   */
  @Override
  public void failOver() {
    if (target == null) {
      awaitReplicas();
      target = nextTarget();
    }
    EmbeddedRedis promoted = cluster.failOver(target);
    target = null;
    failovers++;
    on(promoted, c -> c.sync().configSet("masterauth", ""));
    // In the background, so that the failover's window closes as soon as the cluster serves again.
    joining.add(CompletableFuture.supplyAsync(() -> cluster.addReplica(promoted), RedisClusterFailoverBackend::inOwnThread));
  }

  /**
   * The masters that hold keys (every recipe keeps at least its fencing counter), in slot order,
   * taken in turn; any master when none does yet.
   */
  private EmbeddedRedis nextTarget() {
    List<EmbeddedRedis> masters = cluster.nodes();
    List<EmbeddedRedis> holding = masters.stream().filter(m -> on(m, c -> c.sync().dbsize()) > 0).toList();
    List<EmbeddedRedis> candidates = holding.isEmpty() ? masters : holding;
    return candidates.get(failovers % candidates.size());
  }

  /** Waits for the replicas being added (their sync included), and fails if one could not join. */
  private void awaitReplicas() {
    List<CompletableFuture<EmbeddedRedis>> pending = joining;
    joining = new ArrayList<>();
    try {
      CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).get(2 * TOPOLOGY_WAIT.toSeconds(), TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while replicas joined the cluster", e);
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("a replica could not join the cluster " + cluster.uri(), e);
    }
  }

  @Override
  public boolean canFailOver() {
    return true;
  }

  @Override
  public boolean canCountLeftovers() {
    return true;
  }

  /** As {@link RedisBackend#leftovers}, each recipe on the master that serves its name's slot now. */
  @Override
  public List<String> leftovers(Map<Feature, String> recipes) {
    Map<EmbeddedRedis, Map<Feature, String>> byMaster = new LinkedHashMap<>();
    recipes.forEach((feature, name) -> byMaster
        .computeIfAbsent(cluster.nodeForSlot(SlotHash.getSlot(name)), m -> new EnumMap<>(Feature.class))
        .put(feature, name));
    List<String> left = new ArrayList<>();
    byMaster.forEach((master, onIt) -> left.addAll(on(master, c -> RedisBackend.leftovers(c, onIt))));
    return left;
  }

  @Override
  public boolean canCutLinks() {
    return false;
  }

  @Override
  public boolean canRestartServer() {
    return false;
  }

  @Override
  public void cutLink(Coordinator client) {
    throw refused("cutLink");
  }

  @Override
  public void delayLink(Coordinator client, Duration latency) {
    throw refused("delayLink");
  }

  @Override
  public void restoreLink(Coordinator client) {
    throw refused("restoreLink");
  }

  @Override
  public void restartServer() {
    throw refused("restartServer");
  }

  private static UnsupportedOperationException refused(String what) {
    return new UnsupportedOperationException("the Redis Cluster failover fixture has no " + what
        + ": its clients reach the masters directly, not through a proxy; use RedisBackend");
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    failovers = 0;
    target = null;
    cluster = EmbeddedRedis.cluster(MASTERS);
    // Side by side: each replica's join waits mostly on the cluster bus's gossip.
    cluster.nodes().forEach(master -> joining.add(CompletableFuture.supplyAsync(() -> cluster.addReplica(master), RedisClusterFailoverBackend::inOwnThread)));
    awaitReplicas();
  }

  @Override
  public void afterEach(ExtensionContext context) {
    List<Coordinator> toClose;
    synchronized (this) {
      toClose = new ArrayList<>(clients);
      clients.clear();
    }
    RuntimeException failure = null;
    try {
      awaitReplicas();
    } catch (RuntimeException e) {
      failure = e;
    }
    for (int i = toClose.size() - 1; i >= 0; i--) {
      try {
        toClose.get(i).close();
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    try {
      if (cluster != null) {
        cluster.close();
      }
    } catch (RuntimeException e) {
      if (failure == null) {
        failure = e;
      } else {
        failure.addSuppressed(e);
      }
    }
    cluster = null;
    if (failure != null) {
      throw failure;
    }
  }

  /** A thread per replica's join: they wait on the servers, and the common pool may have one thread. */
  private static void inOwnThread(Runnable join) {
    Thread thread = new Thread(join, "cluster-replica-join");
    thread.setDaemon(true);
    thread.start();
  }

  private static <T> T on(EmbeddedRedis server, Function<StatefulRedisConnection<String, String>, T> command) {
    RedisClient admin = RedisClient.create(server.uri());
    try (StatefulRedisConnection<String, String> connection = admin.connect()) {
      return command.apply(connection);
    } finally {
      admin.shutdown(0, 1, TimeUnit.SECONDS);
    }
  }

  @Override
  public String toString() {
    return "redis cluster failover fixture (" + (cluster == null ? "stopped" : cluster.uri()) + ", "
        + failovers + " failovers)";
  }
}
