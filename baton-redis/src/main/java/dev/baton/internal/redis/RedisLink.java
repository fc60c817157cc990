package dev.baton.internal.redis;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * The connections a client's locks go through, whatever the deployment: one server or the master
 * Sentinel names ({@link ServerLink}), or a Redis Cluster ({@link ClusterLink}). The lock logic
 * is written once against Lettuce's command interface that both kinds of connection share; what
 * differs (where a command goes, where {@code WAIT} must be sent, which connection drops matter)
 * is answered here.
 */
interface RedisLink {

  /** Opens the link {@code settings} name: a cluster for {@code redis-cluster://}, else one server. */
  static RedisLink open(RedisSettings settings) {
    return ClusterLink.accepts(settings.uri()) ? ClusterLink.open(settings) : ServerLink.open(settings);
  }

  /** The deployment's address as given, without its password. */
  String address();

  /**
   * The commands every lock shares, pipelined on one connection (in a cluster, one per master):
   * each goes to the master of its first key's slot, so a script runs where all its keys are.
   */
  RedisClusterAsyncCommands<String, String> commands();

  /**
   * Runs {@code work} on the commands for locks that wait for replicas, to the master that holds
   * {@code key}: {@code WAIT} counts the acknowledgements of the writes sent on the connection it
   * is sent on, and blocks that connection meanwhile, so a lock's scripts and its {@code WAIT}
   * share a connection of their own. Never blocks the calling thread (it may be an I/O thread).
   */
  <T> CompletableFuture<T> replicated(String key,
      Function<RedisClusterAsyncCommands<String, String>, ? extends CompletionStage<T>> work);

  /** Connects what {@link #replicated} needs now, on the caller's thread, rather than later on an I/O thread. */
  void prepareReplicated(String key);

  /** The connection release notices arrive on (in a cluster, {@code PUBLISH} reaches every node). */
  StatefulRedisPubSubConnection<String, String> pubSub();

  /**
   * Refuses a lock whose keys the deployment cannot serve in one script: in a cluster, keys of
   * several slots ({@code CROSSSLOT}).
   *
   * @throws IllegalArgumentException naming the lock
   */
  void checkOneSlot(String name, String[] keys);

  /** Whether a drop of {@code channel} may cut holders off from their locks (it carries lock commands). */
  boolean carriesCommands(RedisChannelHandler<?, ?> channel);

  void addListener(RedisConnectionStateListener listener);

  /**
   * The client's timer wheel, which Lettuce already runs for every command's timeout: adding and
   * cancelling a timeout wakes no thread; it fires on the next tick (100 ms) after it is due.
   */
  io.netty.util.Timer wheel();

  /** Closes every connection and shuts the client down; waits up to 2 s for its threads. */
  void close();
}
