package dev.baton.internal.redis;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.RedisClusterURIUtil;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * A Redis Cluster, found from one or more seed nodes ({@code redis-cluster://host:port,host2:port}).
 * Lettuce routes each command to the master of its first key's slot, and every key of one lock
 * shares a hash tag, so each lock script runs whole on one master. Release notices need no
 * routing: in Redis Cluster (before sharded pub/sub) a {@code PUBLISH} on any node reaches the
 * subscribers of every node, so one subscription connection hears every lock.
 *
 * <p>{@code WAIT} has no key to route by and counts only the writes of the connection it is sent
 * on; a lock that waits for replicas therefore sends its scripts and its {@code WAIT} on the
 * connection to its slot's master, taken from a cluster connection of their own (a {@code WAIT}
 * blocks that connection, not everyone's). A slot that moved meanwhile answers {@code MOVED}: the
 * topology is read again and the command counts as transient, so it is tried again on the new master.
 */
final class ClusterLink extends LettuceLink<StatefulRedisClusterConnection<String, String>> {
  private static final List<String> SCHEMES = List.of("redis-cluster://", "rediss-cluster://");
  /** Without a trigger (a failover the client never saw a redirect for) the topology is read this often. */
  private static final Duration REFRESH_EVERY = Duration.ofSeconds(30);
  /**
   * At most one triggered refresh this often. Lettuce's default (30 s) lets the first trigger of a
   * failover (a few failed reconnects to the killed master, before any replica is promoted) read
   * the old topology and then holds every later trigger back, so a client kept sending the failed
   * master's slots to the dead node for up to the periodic refresh, 30 s.
   */
  private static final Duration TRIGGERED_REFRESH_AT_MOST_EVERY = Duration.ofSeconds(1);

  private final RedisClusterClient client;

  private ClusterLink(String address, RedisClusterClient client, RedisSettings settings) {
    super(address, client, () -> client.connect(StringCodec.UTF8), () -> client.connectPubSub(StringCodec.UTF8),
        settings, "the Redis Cluster at " + address, "is at least one seed node running and reachable?");
    this.client = client;
  }

  /** Whether {@code uri} names a cluster ({@code redis-cluster://} or {@code rediss-cluster://}). */
  static boolean accepts(String uri) {
    String lower = uri.toLowerCase(Locale.ROOT);
    return SCHEMES.stream().anyMatch(lower::startsWith);
  }

  static ClusterLink open(RedisSettings settings) {
    List<RedisURI> seeds = parse(settings.uri());
    seeds.forEach(seed -> ClientSetup.withSettings(seed, settings));
    String address = (seeds.get(0).isSsl() ? "rediss-cluster://" : "redis-cluster://")
        + seeds.stream().map(s -> s.getHost() + ":" + s.getPort()).collect(Collectors.joining(","));
    RedisClusterClient client = RedisClusterClient.create(seeds);
    client.setOptions(ClientSetup.configure(ClusterClientOptions.builder(), settings)
        .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
            .enablePeriodicRefresh(REFRESH_EVERY)
            .enableAllAdaptiveRefreshTriggers()
            .adaptiveRefreshTriggersTimeout(TRIGGERED_REFRESH_AT_MOST_EVERY)
            .build())
        .build());
    return new ClusterLink(address, client, settings);
  }

  /** {@code redis-cluster://} as Lettuce's cluster client reads {@code redis://}: several comma-separated hosts. */
  private static List<RedisURI> parse(String text) {
    String scheme = text.toLowerCase(Locale.ROOT).startsWith("rediss-") ? "rediss" : "redis";
    String rest = text.substring(text.indexOf("://"));
    try {
      List<RedisURI> seeds = RedisClusterURIUtil.toRedisURIs(URI.create(scheme + rest));
      if (seeds.isEmpty() || seeds.stream().anyMatch(s -> s.getHost() == null || s.getHost().isEmpty())) {
        throw new IllegalArgumentException("no seed node");
      }
      return seeds;
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("Cannot read the Redis Cluster URI '" + text + "': " + e.getMessage()
          + " (expected redis-cluster://host:port[,host2:port2...], or rediss-cluster:// for TLS)", e);
    }
  }

  @Override
  public RedisClusterAsyncCommands<String, String> commands() {
    return connection().async();
  }

  @Override
  public <T> CompletableFuture<T> replicated(String key,
      Function<RedisClusterAsyncCommands<String, String>, ? extends CompletionStage<T>> work) {
    int slot = SlotHash.getSlot(key);
    RedisClusterNode master = client.getPartitions().getMasterBySlot(slot);
    if (master == null) {
      client.refreshPartitionsAsync();
      return CompletableFuture.failedFuture(new RedisException("No master of the cluster at " + address()
          + " serves slot " + slot + " (of " + key + ") yet"));
    }
    RedisURI node = master.getUri();
    CompletableFuture<T> result = replicatedConnection().getConnectionAsync(node.getHost(), node.getPort())
        .thenCompose(nodeConnection -> work.apply(nodeConnection.async()));
    return result.exceptionallyCompose(error -> {
      Throwable cause = RedisErrors.unwrap(error);
      String message = String.valueOf(cause.getMessage());
      if (cause instanceof RedisCommandExecutionException && (message.startsWith("MOVED") || message.startsWith("ASK"))) {
        client.refreshPartitionsAsync();
        return CompletableFuture.failedFuture(new RedisException("Slot " + slot + " of " + key
            + " is no longer on " + node.getHost() + ":" + node.getPort() + " (" + message + ")", cause));
      }
      return CompletableFuture.failedFuture(cause);
    });
  }

  @Override
  public void prepareReplicated(String key) {
    RedisClusterNode master = client.getPartitions().getMasterBySlot(SlotHash.getSlot(key));
    StatefulRedisClusterConnection<String, String> own = replicatedConnection();
    if (master != null) {
      own.getConnectionAsync(master.getUri().getHost(), master.getUri().getPort()); // ready by the first use
    }
  }

  @Override
  public void checkOneSlot(String name, String[] keys) {
    int slot = SlotHash.getSlot(keys[0]);
    for (String key : keys) {
      int other = SlotHash.getSlot(key);
      if (other != slot) {
        throw new IllegalArgumentException("The lock name '" + name + "' spreads its keys over several slots of"
            + " the Redis Cluster ('" + keys[0] + "' is in slot " + slot + ", '" + key + "' in slot " + other
            + "), so no script could take them together: use a name without braces, or with one non-empty"
            + " {hash tag}");
      }
    }
  }

  @Override
  public boolean carriesCommands(RedisChannelHandler<?, ?> channel) {
    // Each master has a connection of its own, and any of them may carry some lock's commands.
    return !(channel instanceof StatefulRedisPubSubConnection) && channel instanceof StatefulRedisConnection;
  }
}
