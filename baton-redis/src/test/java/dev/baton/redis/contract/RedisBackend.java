package dev.baton.redis.contract;

import dev.baton.ConnectionException;
import dev.baton.Coordinator;
import dev.baton.embedded.EmbeddedRedis;
import dev.baton.redis.RedisBaton;
import dev.baton.testkit.contract.ContractBackendExtension;
import dev.baton.testkit.contract.Feature;
import dev.baton.testkit.contract.Promise;
import io.lettuce.core.KillArgs;
import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The Redis backend for the conformance suite: a real redis-server per test class (as
 * RedisTestSupport starts it: loopback, free port, persistence off), clients with a 1.5 s lease TTL
 * renewed every 300 ms, each through a proxy of its own.
 *
 * <p>What it offers and promises is declared here, one line each: add a {@link Feature} to
 * {@link #features()} when the recipe lands on Redis, and that contract runs in full instead of
 * checking the refusal.
 */
public final class RedisBackend extends ContractBackendExtension {
  private static final Duration LEASE_TTL = Duration.ofMillis(1500);
  private static final Duration RENEW_EVERY = Duration.ofMillis(300);
  // Also the time Lettuce allows a connection handshake: 500 ms proved too short on a loaded machine.
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);
  private final boolean counter;
  private final boolean persistent;
  private EmbeddedRedis redis;

  /** The backend every contract but the counter's runs on: see {@link #withCounter()}. */
  public RedisBackend() {
    this(false, false);
  }

  private RedisBackend(boolean counter, boolean persistent) {
    this.counter = counter;
    this.persistent = persistent;
  }

  /**
   * The backend with {@link Feature#COUNTER} declared, for {@code RedisCounterContractTest}. Not
   * declared for the others because the chaos run ({@code CoordinatorChaos}, shared by every backend)
   * counts increments across {@link #restartServer()}: this server runs without persistence, so a
   * restart empties it and the counter starts again from 0, which the run reports as lost updates. A
   * Redis counter is exactly as durable as the server's persistence; the chaos run has no promise to
   * declare that with yet (its counter check would need one, as leases have {@link
   * Promise#LEASE_KEPT_ACROSS_SERVER_RESTART}).
   */
  public static RedisBackend withCounter() {
    return new RedisBackend(true, false);
  }

  /**
   * The backend on a server that logs every write before it answers ({@code --appendonly yes
   * --appendfsync always}) and so keeps what it acknowledged across {@link #restartServer()} (a
   * kill and a start on the same files): the counter is declared, since a restart no longer
   * empties it. Leases are still not promised across a restart: a holder's renewals fail while the
   * server is down, and it is told so.
   */
  public static RedisBackend persistent() {
    return new RedisBackend(true, true);
  }

  @Override
  public String name() {
    return "redis";
  }

  @Override
  public Set<Feature> features() {
    EnumSet<Feature> features = EnumSet.of(Feature.MUTEX, Feature.READ_WRITE_LOCK, Feature.SEMAPHORE,
        Feature.MULTI_LOCK, Feature.LEADER_LATCH, Feature.LEADER_SELECTOR, Feature.LOCAL_HAND_OVER);
    if (counter) {
      features.add(Feature.COUNTER);
    }
    return features;
  }

  /**
   * The server runs without persistence (as EmbeddedRedis, and many deployments of a lock
   * server, do), so a restart empties it: a lease held across it is lost, as the package
   * documentation of baton-redis says. Fencing tokens must still grow across it (that case is
   * promised and runs). A waiter's fencing token is drawn from the lock's counter when it is
   * granted, so {@code waiters()} shows it as 0 until then. A lock key deleted under its holder
   * (DEL, eviction) is told at the holder's next renewal, and a waiter may be granted before that:
   * the chaos run counts those grants apart.
   */
  @Override
  public Set<Promise> notPromised() {
    return EnumSet.of(Promise.LEASE_KEPT_ACROSS_SERVER_RESTART, Promise.WAITER_SHOWS_ITS_TOKEN,
        Promise.LOSS_TOLD_BEFORE_REGRANT_WHEN_KEY_DELETED);
  }

  @Override
  public Duration leaseTimeout() {
    return LEASE_TTL;
  }

  @Override
  protected void startServer() {
    redis = persistent ? EmbeddedRedis.builder().arg("--appendonly", "yes", "--appendfsync", "always").start()
        : EmbeddedRedis.start();
  }

  @Override
  protected void stopServer() {
    if (redis != null) {
      redis.close();
    }
  }

  @Override
  protected InetSocketAddress serverAddress() {
    return new InetSocketAddress(redis.host(), redis.port());
  }

  @Override
  protected Coordinator connect(String hostAndPort, Duration leaseTtl) {
    Duration renew = leaseTtl.dividedBy(5).compareTo(RENEW_EVERY) < 0 ? leaseTtl.dividedBy(5) : RENEW_EVERY;
    // The handshake gets the command timeout, which a machine loaded well past its cores can exceed
    // (seen at a load of 25 on 2 cores); a longer timeout would change what the contracts test, so the
    // fixture tries the connection again instead, twice at most.
    for (int attempt = 1; ; attempt++) {
      try {
        // The client name (CLIENT SETNAME, sent by Lettuce on every connection and reconnection) tells
        // this client's connections apart in CLIENT LIST (killConnections).
        return RedisBaton.builder().uri("redis://" + hostAndPort + "?clientName=" + clientName(hostAndPort))
            .leaseTtl(leaseTtl).renewEvery(renew)
            .commandTimeout(COMMAND_TIMEOUT).connectTimeout(Duration.ofSeconds(10))
            .waiterLease(Duration.ofSeconds(3)).build();
      } catch (ConnectionException e) {
        if (attempt == 3) {
          throw e;
        }
      }
    }
  }

  @Override
  public void restartServer() {
    redis.restart();
  }

  private static String clientName(String hostAndPort) {
    return "baton-contract-" + hostAndPort.substring(hostAndPort.lastIndexOf(':') + 1);
  }

  @Override
  public boolean canKillConnections() {
    return true;
  }

  /**
   * {@code CLIENT KILL ID} of every connection {@code CLIENT LIST} shows under {@code client}'s name
   * (its command and pub/sub connections): Lettuce reconnects, and the client's leases are told
   * {@code SUSPECT} meanwhile, then {@code HELD} or {@code LOST} as their keys say.
   */
  @Override
  public int killConnections(Coordinator client) {
    String name = clientName(connectString(client));
    return onServer(c -> {
      int killed = 0;
      for (String line : c.sync().clientList().split("\n")) {
        Map<String, String> fields = new HashMap<>();
        for (String field : line.trim().split(" ")) {
          int eq = field.indexOf('=');
          if (eq > 0) {
            fields.put(field.substring(0, eq), field.substring(eq + 1));
          }
        }
        if (name.equals(fields.get("name"))) {
          killed += c.sync().clientKill(KillArgs.Builder.id(Long.parseLong(fields.get("id")))).intValue();
        }
      }
      return killed;
    });
  }

  @Override
  public boolean canDeleteRecord(Feature feature) {
    return feature == Feature.MUTEX || feature == Feature.READ_WRITE_LOCK || feature == Feature.SEMAPHORE;
  }

  /**
   * {@code DEL} of the lock key (the lock's name, in the default layout) for a mutex, and of the
   * lock's hash (every holder's field) for a read-write lock, as an eviction would; for a semaphore,
   * one unexpired permit's entry taken out of {@code {name}:timeout} and the permit given back to the
   * count, as the sweep of an expired permit does (an entry deleted without that would leak the
   * permit for good, which no holder could be told of).
   */
  @Override
  public boolean deleteRecord(Feature feature, String name) {
    return switch (feature) {
      case MUTEX, READ_WRITE_LOCK -> onServer(c -> c.sync().del(name) > 0);
      case SEMAPHORE -> onServer(c -> c.sync().<Long>eval("""
          local t = redis.call('TIME')
          local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
          local held = redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. now, '+inf', 'LIMIT', 0, 1)
          if #held == 0 then return 0 end
          redis.call('ZREM', KEYS[2], held[1])
          redis.call('INCRBY', KEYS[1], 1)
          return 1""", ScriptOutputType.INTEGER, name, permitsKey(name)) > 0);
      default -> throw new UnsupportedOperationException("the redis fixture cannot delete a " + feature.words()
          + "'s record");
    };
  }

  @Override
  public boolean canCountLeftovers() {
    return true;
  }

  @Override
  public List<String> leftovers(Map<Feature, String> recipes) {
    return onServer(c -> leftovers(c, recipes));
  }

  /**
   * The grants still in force of the recipes named: a mutex's or leader latch's key, a read-write
   * lock's holder fields, a semaphore's unexpired permit entries. Fencing counters, the semaphore's
   * count and the waiters' queues (whose places lapse by themselves) are not grants.
   */
  static List<String> leftovers(StatefulRedisConnection<String, String> c, Map<Feature, String> recipes) {
    List<String> left = new ArrayList<>();
    for (Map.Entry<Feature, String> recipe : recipes.entrySet()) {
      String name = recipe.getValue();
      switch (recipe.getKey()) {
        case MUTEX, LEADER_LATCH -> {
          if (c.sync().exists(name) > 0) {
            left.add("key " + name + " (" + c.sync().type(name) + ", expires in " + c.sync().pttl(name) + " ms)");
          }
        }
        case READ_WRITE_LOCK -> {
          if ("hash".equals(c.sync().type(name))) {
            c.sync().hkeys(name).stream().filter(field -> !field.equals("mode"))
                .forEach(field -> left.add("hash " + name + " field " + field));
          }
        }
        case SEMAPHORE -> {
          List<String> time = c.sync().time();
          long now = Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
          c.sync().zrangebyscore(permitsKey(name), Range.create((double) now, Double.POSITIVE_INFINITY))
              .forEach(permit -> left.add("permit " + permit + " in " + permitsKey(name)));
        }
        default -> throw new IllegalArgumentException("no leftovers to look for of a " + recipe.getKey().words());
      }
    }
    return left;
  }

  /** The semaphore's held permits, in Redisson's layout. */
  private static String permitsKey(String name) {
    return (name.contains("{") ? name : "{" + name + "}") + ":timeout";
  }

  private <T> T onServer(Function<StatefulRedisConnection<String, String>, T> command) {
    RedisClient raw = RedisClient.create(redis.uri());
    try (StatefulRedisConnection<String, String> connection = raw.connect()) {
      return command.apply(connection);
    } finally {
      raw.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }
}
