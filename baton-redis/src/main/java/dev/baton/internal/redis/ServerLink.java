package dev.baton.internal.redis;

import dev.baton.ConnectionException;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/** One Redis server, or the master a Sentinel names: a command connection, a pub/sub one, one for {@code WAIT}. */
final class ServerLink implements RedisLink {
  private final String address;
  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final StatefulRedisPubSubConnection<String, String> pubSub;
  private volatile StatefulRedisConnection<String, String> replicated;

  private ServerLink(String address, RedisClient client, StatefulRedisConnection<String, String> connection,
      StatefulRedisPubSubConnection<String, String> pubSub) {
    this.address = address;
    this.client = client;
    this.connection = connection;
    this.pubSub = pubSub;
  }

  static ServerLink open(RedisSettings settings) {
    RedisURI uri = ClientSetup.withSettings(parse(settings.uri()), settings);
    String address = describe(uri);
    RedisClient client = RedisClient.create(uri);
    client.setOptions(ClientSetup.configure(ClientOptions.builder(), settings).build());
    StatefulRedisConnection<String, String> connection = null;
    try {
      connection = client.connect(StringCodec.UTF8);
      return new ServerLink(address, client, connection, client.connectPubSub(StringCodec.UTF8));
    } catch (RuntimeException e) {
      if (connection != null) {
        connection.closeAsync();
      }
      client.shutdownAsync(0, 2, TimeUnit.SECONDS);
      throw new ConnectionException("Could not connect to Redis at " + address + " within "
          + settings.connectTimeout().toMillis() + " ms; is the server running and reachable? ("
          + RedisErrors.unwrap(e).getMessage() + ")", e);
    }
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
  public String address() {
    return address;
  }

  @Override
  public RedisClusterAsyncCommands<String, String> commands() {
    return connection.async();
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

  private synchronized StatefulRedisConnection<String, String> replicatedConnection() {
    if (replicated == null) {
      replicated = client.connect(StringCodec.UTF8);
    }
    return replicated;
  }

  @Override
  public StatefulRedisPubSubConnection<String, String> pubSub() {
    return pubSub;
  }

  @Override
  public void checkOneSlot(String name, String[] keys) {
    // One server holds every key.
  }

  @Override
  public boolean carriesCommands(RedisChannelHandler<?, ?> channel) {
    return channel == connection;
  }

  @Override
  public void addListener(RedisConnectionStateListener listener) {
    client.addListener(listener);
  }

  @Override
  public void close() {
    pubSub.closeAsync();
    if (replicated != null) {
      replicated.closeAsync();
    }
    connection.close();
    client.shutdown(0, 2, TimeUnit.SECONDS);
  }
}
