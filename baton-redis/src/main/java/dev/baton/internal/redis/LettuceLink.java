package dev.baton.internal.redis;

import dev.baton.ConnectionException;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * What both kinds of {@link RedisLink} keep alike: a Lettuce client, its command connection, its
 * pub/sub connection, and the connection for {@code WAIT}, made when first needed.
 *
 * @param <C> the command connection: one server's, or a cluster's
 */
abstract class LettuceLink<C extends StatefulConnection<String, String>> implements RedisLink {
  private final String address;
  private final AbstractRedisClient client;
  private final Supplier<C> connector;
  private final C connection;
  private final StatefulRedisPubSubConnection<String, String> pubSub;
  // A lock, not a monitor: the first caller connects (network I/O) while holding it, and a virtual
  // thread blocked on a monitor pins its carrier on JDK 21-23, where one on a ReentrantLock unmounts.
  private final ReentrantLock replicatedLock = new ReentrantLock();
  private C replicated; // guarded by replicatedLock

  /**
   * Connects the command and pub/sub connections; if either fails, closes what was opened, shuts
   * {@code client} down and throws a {@link ConnectionException} that names {@code subject} and
   * the connect timeout, with {@code hint}.
   */
  LettuceLink(String address, AbstractRedisClient client, Supplier<C> connector,
      Supplier<StatefulRedisPubSubConnection<String, String>> pubSubConnector, RedisSettings settings,
      String subject, String hint) {
    this.address = address;
    this.client = client;
    this.connector = connector;
    C commands = null;
    StatefulRedisPubSubConnection<String, String> notices;
    try {
      commands = connector.get();
      notices = pubSubConnector.get();
    } catch (RuntimeException e) {
      if (commands != null) {
        commands.closeAsync();
      }
      client.shutdownAsync(0, 2, TimeUnit.SECONDS);
      throw new ConnectionException("Could not connect to " + subject + " within "
          + settings.connectTimeout().toMillis() + " ms; " + hint + " (" + RedisErrors.unwrap(e).getMessage() + ")", e);
    }
    this.connection = commands;
    this.pubSub = notices;
  }

  @Override
  public String address() {
    return address;
  }

  C connection() {
    return connection;
  }

  /** The connection locks that wait for replicas send their commands on, connected when first asked for. */
  C replicatedConnection() {
    replicatedLock.lock();
    try {
      if (replicated == null) {
        replicated = connector.get();
      }
      return replicated;
    } finally {
      replicatedLock.unlock();
    }
  }

  @Override
  public StatefulRedisPubSubConnection<String, String> pubSub() {
    return pubSub;
  }

  @Override
  public void addListener(RedisConnectionStateListener listener) {
    client.addListener(listener);
  }

  @Override
  public io.netty.util.Timer wheel() {
    return client.getResources().timer();
  }

  @Override
  public void close() {
    pubSub.closeAsync();
    replicatedLock.lock();
    try {
      if (replicated != null) {
        replicated.closeAsync();
      }
    } finally {
      replicatedLock.unlock();
    }
    connection.close();
    client.shutdown(0, 2, TimeUnit.SECONDS);
  }
}
