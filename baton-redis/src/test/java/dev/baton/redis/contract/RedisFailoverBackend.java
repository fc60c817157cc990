package dev.baton.redis.contract;

import dev.baton.Coordinator;
import dev.baton.embedded.EmbeddedRedis;
import dev.baton.redis.RedisBaton;
import dev.baton.testkit.FaultProxy;
import dev.baton.testkit.contract.ContractBackend;
import dev.baton.testkit.contract.Feature;
import dev.baton.testkit.contract.Promise;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Redis as it fails over, for {@link dev.baton.testkit.contract.FailoverContract}: per test, a
 * master, a replica that replicates from it through a {@link FaultProxy} (so that its link can be
 * cut while both keep running, as an asynchronous replica falls behind) and a Sentinel that watches
 * them. Clients find the master through the Sentinel ({@code redis-sentinel://}) and follow it to
 * the promoted replica (see {@link #failOver()}), with the lease TTL and renewal of {@link RedisBackend}.
 * Each failover starts a new replica behind the promoted one, so the store can fail over again (as
 * the chaos run over this fixture does).
 *
 * <p>It offers what {@link RedisBackend} offers, and declares what that does not promise and
 * {@link Promise#GRANT_KEPT_ACROSS_FAILOVER}: Redis replicates asynchronously, and the default
 * mutex does not {@code WAIT} for a replica after a grant. Clients talk to the master directly,
 * not through a proxy of their own: {@link #cutLink}, {@link #delayLink}, {@link #restoreLink} and
 * {@link #restartServer} are refused, and declared so ({@link #canCutLinks()}, {@link
 * #canRestartServer()}; the contracts that need them run over {@link RedisBackend}).
 */
public final class RedisFailoverBackend implements ContractBackend, BeforeEachCallback, AfterEachCallback {
  private static final String MASTER_NAME = "baton-failover";
  private static final Duration LEASE_TTL = Duration.ofMillis(1500);
  private static final Duration RENEW_EVERY = Duration.ofMillis(300);
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);
  private static final Duration TOPOLOGY_WAIT = Duration.ofSeconds(30);
  private static final RedisBackend SINGLE_SERVER = new RedisBackend();

  private final List<Coordinator> clients = new ArrayList<>();
  private EmbeddedRedis master;
  private FaultProxy replicationLink;
  private EmbeddedRedis replica;
  private EmbeddedRedis sentinel;

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
    RedisBaton client = RedisBaton.builder()
        .uri("redis-sentinel://" + sentinel.host() + ":" + sentinel.port() + "#" + MASTER_NAME)
        .leaseTtl(leaseTtl).renewEvery(renew).commandTimeout(COMMAND_TIMEOUT)
        .connectTimeout(Duration.ofSeconds(10)).waiterLease(Duration.ofSeconds(3)).build();
    clients.add(client);
    return client;
  }

  /** Waits until the replica has every write so far, then cuts its link to the master. */
  @Override
  public void holdBackReplication() {
    long acknowledged = on(master, c -> c.sync().waitForReplication(1, TOPOLOGY_WAIT.toMillis()));
    if (acknowledged < 1) {
      throw new IllegalStateException("the replica did not catch up with the master within " + TOPOLOGY_WAIT
          + "; the replica says:\n" + on(replica, c -> c.sync().info("replication")) + "\nthe master says:\n"
          + on(master, c -> c.sync().info("replication")));
    }
    replicationLink.cut();
  }

  /**
   * Kills the master (as a crash would), promotes the replica ({@code REPLICAOF NO ONE}) and points
   * the Sentinel at it ({@code SENTINEL REMOVE}, {@code MONITOR}), as an operator or an orchestrator
   * fails over; returns once the Sentinel names the replica as the master, with a new replica of
   * it starting (its first sync is waited for by the next {@link #holdBackReplication()}). The fixture promotes
   * rather than waiting for the Sentinel's own failover: that runs on the Sentinel's timer, which a
   * loaded machine can stall into TILT mode, where it fails nothing over for 30 s.
   */
  @Override
  public void failOver() {
    master.kill();
    on(replica, c -> c.sync().replicaofNoOne());
    onSentinel(c -> c.sync().remove(MASTER_NAME));
    onSentinel(c -> c.sync().monitor(MASTER_NAME, replica.host(), replica.port(), 1));
    onSentinel(c -> c.sync().set(MASTER_NAME, "failover-timeout", "120000"));
    Awaitility.await("the Sentinel naming the promoted replica").atMost(TOPOLOGY_WAIT)
        .pollInterval(Duration.ofMillis(50)).ignoreExceptions()
        .until(() -> onSentinel(c -> ((InetSocketAddress) c.sync().getMasterAddrByName(MASTER_NAME)).getPort())
            == replica.port() && on(replica, c -> c.sync().info("replication")).contains("role:master"));
    EmbeddedRedis dead = master;
    FaultProxy oldLink = replicationLink;
    master = replica;
    startReplica();
    oldLink.close();
    dead.close();
  }

  @Override
  public boolean canFailOver() {
    return true;
  }

  @Override
  public boolean canCountLeftovers() {
    return true;
  }

  /** As {@link RedisBackend#leftovers}, on the master that serves now. */
  @Override
  public List<String> leftovers(Map<Feature, String> recipes) {
    return on(master, c -> RedisBackend.leftovers(c, recipes));
  }

  @Override
  public boolean canCutLinks() {
    return false;
  }

  @Override
  public boolean canRestartServer() {
    return false;
  }

  /**
   * A replica of {@link #master} through a new {@link #replicationLink}. The master sends its
   * snapshot at once rather than after diskless sync's default 5 s wait for more replicas.
   */
  private void startReplica() {
    on(master, c -> c.sync().configSet("repl-diskless-sync-delay", "0"));
    replicationLink = FaultProxy.start(new InetSocketAddress(master.host(), master.port()));
    replica = EmbeddedRedis.builder()
        .arg("--replicaof", master.host(), Integer.toString(replicationLink.port())).start();
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
    return new UnsupportedOperationException("the Redis failover fixture has no " + what
        + ": its clients reach the master through Sentinel, not through a proxy; use RedisBackend");
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    master = EmbeddedRedis.start();
    startReplica();
    Awaitility.await("the replica's sync").atMost(TOPOLOGY_WAIT).pollInterval(Duration.ofMillis(50))
        .ignoreExceptions().until(() -> on(replica, c -> c.sync().info("replication")).contains("master_link_status:up"));
    sentinel = EmbeddedRedis.sentinel(master, MASTER_NAME);
    // The replica reports the proxy as its master; the Sentinel would repoint it at the master's own
    // address (+fix-slave-config) once the failover timeout has passed, so that is made longer than a test.
    onSentinel(c -> c.sync().set(MASTER_NAME, "failover-timeout", "120000"));
    Awaitility.await("the Sentinel's discovery of the replica").atMost(TOPOLOGY_WAIT)
        .pollInterval(Duration.ofMillis(50)).ignoreExceptions()
        .until(() -> onSentinel(c -> c.sync().info("sentinel")).contains("slaves=1"));
  }

  @Override
  public void afterEach(ExtensionContext context) {
    List<Coordinator> toClose;
    synchronized (this) {
      toClose = new ArrayList<>(clients);
      clients.clear();
    }
    RuntimeException failure = null;
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
    for (AutoCloseable part : new AutoCloseable[] {sentinel, replica, replicationLink, master}) {
      try {
        if (part != null) {
          part.close();
        }
      } catch (Exception e) {
        if (failure == null) {
          failure = new IllegalStateException("could not stop the Redis failover topology", e);
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    sentinel = null;
    replica = null;
    replicationLink = null;
    master = null;
    if (failure != null) {
      throw failure;
    }
  }

  /** Runs {@code command} on the master (for Redis-specific cases that set up its keys by hand). */
  <T> T onMaster(Function<StatefulRedisConnection<String, String>, T> command) {
    return on(master, command);
  }

  private static <T> T on(EmbeddedRedis server, Function<StatefulRedisConnection<String, String>, T> command) {
    RedisClient admin = RedisClient.create(server.uri());
    try (StatefulRedisConnection<String, String> connection = admin.connect()) {
      return command.apply(connection);
    } finally {
      admin.shutdown(0, 1, TimeUnit.SECONDS);
    }
  }

  private <T> T onSentinel(Function<StatefulRedisSentinelConnection<String, String>, T> command) {
    RedisClient admin = RedisClient.create(sentinel.uri());
    try (StatefulRedisSentinelConnection<String, String> connection = admin.connectSentinel()) {
      return command.apply(connection);
    } finally {
      admin.shutdown(0, 1, TimeUnit.SECONDS);
    }
  }

  @Override
  public String toString() {
    return "redis failover fixture (master " + (master == null ? "-" : master.port()) + ", replica "
        + (replica == null ? "-" : replica.port()) + ", sentinel " + (sentinel == null ? "-" : sentinel.port()) + ")";
  }
}
