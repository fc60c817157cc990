package dev.baton.internal.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.stream.Collectors;

/** One Redis server, or the master a Sentinel names: a command connection, a pub/sub one, one for {@code WAIT}. */
final class ServerLink extends LettuceLink<StatefulRedisConnection<String, String>> {

  private ServerLink(String address, RedisClient client, RedisSettings settings) {
    super(address, client, () -> client.connect(StringCodec.UTF8), () -> client.connectPubSub(StringCodec.UTF8),
        settings, "Redis at " + address, "is the server running and reachable?");
  }

  static ServerLink open(RedisSettings settings) {
    RedisURI uri = ClientSetup.withSettings(parse(settings.uri()), settings);
    RedisClient client = RedisClient.create(uri);
    client.setOptions(ClientSetup.configure(ClientOptions.builder(), settings).build());
    return new ServerLink(describe(uri), client, settings);
  }

  private static RedisURI parse(String text) {
    try {
      return RedisURI.create(text);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("Cannot read the Redis URI '" + text + "': " + e.getMessage()
          + " (expected redis://host:port, rediss://host:port, redis-sentinel://host:port#master"
          + " or redis-cluster://host:port,host2:port2)", e);
    }
  }

  private static String describe(RedisURI uri) {
    if (!uri.getSentinels().isEmpty()) {
      return "sentinel " + uri.getSentinels().stream().map(s -> s.getHost() + ":" + s.getPort())
          .collect(Collectors.joining(",")) + " master " + uri.getSentinelMasterId();
    }
    return (uri.isSsl() ? "rediss://" : "redis://") + uri.getHost() + ":" + uri.getPort();
  }

  @Override
  public RedisClusterAsyncCommands<String, String> commands() {
    return connection().async();
  }

  @Override
  public <T> CompletableFuture<T> replicated(String key,
      Function<RedisClusterAsyncCommands<String, String>, ? extends CompletionStage<T>> work) {
    return work.apply(replicatedConnection().async()).toCompletableFuture();
  }

  @Override
  public void prepareReplicated(String key) {
    replicatedConnection();
  }

  @Override
  public void checkOneSlot(String name, String[] keys) {
    // One server holds every key.
  }

  @Override
  public boolean carriesCommands(RedisChannelHandler<?, ?> channel) {
    return channel == connection();
  }
}
