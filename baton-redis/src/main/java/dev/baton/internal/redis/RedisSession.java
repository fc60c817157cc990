package dev.baton.internal.redis;

import dev.baton.ClientClosedException;
import dev.baton.ConnectionException;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Redis client's connections and what every lock of it shares: one command connection (Lettuce
 * pipelines every thread's commands on it), one pub/sub connection for release notices, a timer
 * for renewals and re-checks, an executor for listeners and async results, and the leases and
 * waiters that {@link #close()} ends.
 */
public final class RedisSession {
  private static final Logger log = LoggerFactory.getLogger(RedisSession.class);
  private static final AtomicInteger CLIENTS = new AtomicInteger();

  private final RedisSettings settings;
  private final String address;
  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final StatefulRedisPubSubConnection<String, String> pubSub;
  private final ReleaseNotices notices;
  private final ScheduledExecutorService timer;
  private final ExecutorService events;
  private final String clientId = UUID.randomUUID().toString();
  private final String host = hostName();
  private final long pid = ProcessHandle.current().pid();
  private final long processStart = ManagementFactory.getRuntimeMXBean().getStartTime();
  private final AtomicLong sequence = new AtomicLong();
  private final Set<RedisHold> holds = ConcurrentHashMap.newKeySet();
  private final Set<Acquisition> waiting = ConcurrentHashMap.newKeySet();
  /** Weakly: a cohort lives as long as its mutex object, which the user may drop at any time. */
  private final Set<LocalCohort> cohorts = java.util.Collections.synchronizedSet(
      java.util.Collections.newSetFromMap(new java.util.WeakHashMap<>()));
  private volatile StatefulRedisConnection<String, String> replicated;
  private volatile boolean closed;

  private RedisSession(RedisSettings settings, String address, RedisClient client,
      StatefulRedisConnection<String, String> connection, StatefulRedisPubSubConnection<String, String> pubSub) {
    this.settings = settings;
    this.address = address;
    this.client = client;
    this.connection = connection;
    this.pubSub = pubSub;
    int n = CLIENTS.incrementAndGet();
    ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1, daemon("baton-redis-timer-" + n));
    scheduler.setRemoveOnCancelPolicy(true);
    this.timer = scheduler;
    this.events = Executors.newSingleThreadExecutor(daemon("baton-redis-events-" + n));
    this.notices = new ReleaseNotices(pubSub, scheduler, settings.waiterLease().toMillis());
    pubSub.addListener(notices);
  }

  /** Connects as {@code settings} say. */
  public static RedisSession open(RedisSettings settings) {
    RedisURI uri = parse(settings);
    String address = describe(uri);
    RedisClient client = RedisClient.create(uri);
    ClientOptions.Builder options = ClientOptions.builder();
    if (settings.trustStore() != null) {
      options.sslOptions(io.lettuce.core.SslOptions.builder()
          .truststore(settings.trustStore().toFile(), settings.trustStorePassword()).build());
    }
    client.setOptions(options
        .autoReconnect(true)
        // Fail commands at once while disconnected: a renewal that waited in a queue would hide
        // the outage the lease must report.
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .socketOptions(SocketOptions.builder().connectTimeout(settings.connectTimeout()).keepAlive(true).build())
        .timeoutOptions(TimeoutOptions.enabled(settings.commandTimeout()))
        .build());
    StatefulRedisConnection<String, String> connection = null;
    try {
      connection = client.connect(StringCodec.UTF8);
      StatefulRedisPubSubConnection<String, String> pubSub = client.connectPubSub(StringCodec.UTF8);
      RedisSession session = new RedisSession(settings, address, client, connection, pubSub);
      client.addListener(session.new ConnectionWatch());
      return session;
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

  private static RedisURI parse(RedisSettings settings) {
    RedisURI uri;
    try {
      uri = RedisURI.create(settings.uri());
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("Cannot read the Redis URI '" + settings.uri() + "': " + e.getMessage()
          + " (expected redis://host:port, rediss://host:port or redis-sentinel://host:port#master)", e);
    }
    if (settings.user() != null) {
      uri.setUsername(settings.user());
    }
    if (settings.password() != null) {
      uri.setPassword(settings.password());
    }
    if (settings.tls()) {
      uri.setSsl(true);
    }
    uri.setTimeout(settings.commandTimeout());
    return uri;
  }

  private static String describe(RedisURI uri) {
    if (!uri.getSentinels().isEmpty()) {
      return "sentinel " + uri.getSentinels().stream().map(s -> s.getHost() + ":" + s.getPort())
          .collect(Collectors.joining(",")) + " master " + uri.getSentinelMasterId();
    }
    return (uri.isSsl() ? "rediss://" : "redis://") + uri.getHost() + ":" + uri.getPort();
  }

  public String address() {
    return address;
  }

  public void checkOpen() {
    if (closed) {
      throw closedException();
    }
  }

  ClientClosedException closedException() {
    return new ClientClosedException("Redis at " + address);
  }

  boolean isClosed() {
    return closed;
  }

  RedisSettings settings() {
    return settings;
  }

  RedisAsyncCommands<String, String> commands() {
    return connection.async();
  }

  /**
   * The connection for locks that wait for replicas: {@code WAIT} blocks the connection it is
   * sent on until the replicas answer, so it gets one of its own rather than stall everyone's.
   */
  synchronized RedisAsyncCommands<String, String> replicatedCommands() {
    if (replicated == null) {
      replicated = client.connect(StringCodec.UTF8);
    }
    return replicated.async();
  }

  ReleaseNotices notices() {
    return notices;
  }

  ScheduledExecutorService timer() {
    return timer;
  }

  ExecutorService events() {
    return events;
  }

  /** A new owner id for one acquisition: {@code <client id>:<sequence>}. */
  String nextOwnerId() {
    return clientId + ":" + sequence.incrementAndGet();
  }

  String member(String ownerId, Thread thread) {
    return OwnerRecord.member(ownerId, host, pid, processStart, thread.getName());
  }

  void register(RedisHold hold) {
    holds.add(hold);
  }

  void unregister(RedisHold hold) {
    holds.remove(hold);
  }

  void register(LocalCohort cohort) {
    cohorts.add(cohort);
  }

  void register(Acquisition acquisition) {
    waiting.add(acquisition);
  }

  void unregister(Acquisition acquisition) {
    waiting.remove(acquisition);
  }

  /** Runs {@code task} on the timer unless the client is closed. */
  void schedule(Runnable task, long delayMillis) {
    if (!closed) {
      try {
        timer.schedule(task, Math.max(0, delayMillis), TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.RejectedExecutionException e) {
        // closed meanwhile: the close ends what the task would have done
      }
    }
  }

  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    ClientClosedException error = closedException();
    List<LocalCohort> localQueues;
    synchronized (cohorts) {
      localQueues = List.copyOf(cohorts);
    }
    localQueues.forEach(cohort -> cohort.failAll(error));
    for (Acquisition acquisition : List.copyOf(waiting)) {
      acquisition.giveUp(error);
    }
    List<CompletableFuture<?>> releases = new ArrayList<>();
    for (RedisHold hold : List.copyOf(holds)) {
      releases.add(hold.releaseOnClose());
    }
    try {
      CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new))
          .get(settings.commandTimeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      log.warn("Not every lock of the client for {} was released before it closed; they expire with their TTL",
          address);
    }
    timer.shutdownNow();
    events.shutdown();
    pubSub.closeAsync();
    if (replicated != null) {
      replicated.closeAsync();
    }
    connection.close();
    client.shutdown(0, 2, TimeUnit.SECONDS);
  }

  private static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "unknown";
    }
  }

  private static ThreadFactory daemon(String name) {
    return task -> {
      Thread thread = new Thread(task, name);
      thread.setDaemon(true);
      return thread;
    };
  }

  /** Tells leases of a lost connection at once, and renews and re-checks once it is back. */
  private final class ConnectionWatch implements RedisConnectionStateListener {
    @Override
    public void onRedisConnected(RedisChannelHandler<?, ?> channel, SocketAddress socketAddress) {
      if (closed) {
        return;
      }
      if (channel == connection) {
        holds.forEach(RedisHold::renewSoon);
      }
      // Release notices sent while the connection was down are lost: look again.
      waiting.forEach(Acquisition::wake);
    }

    @Override
    public void onRedisDisconnected(RedisChannelHandler<?, ?> channel) {
      if (channel == connection && !closed) {
        holds.forEach(RedisHold::connectionLost);
      }
    }
  }
}
