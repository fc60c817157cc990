package dev.baton.internal.redis;

import dev.baton.ClientClosedException;
import dev.baton.ConnectionState;
import dev.baton.ConnectionStateListener;
import dev.baton.internal.lease.ThreadLabels;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Redis client's connections ({@link RedisLink}: one server, or a cluster) and what every lock
 * of it shares, whichever recipe it is (the recipes, in packages of their own, register here through
 * {@link Held}, {@link Waiter} and {@link LocalQueue}, so this layer knows none of them): the command connection (Lettuce pipelines every thread's commands on it), the
 * pub/sub connection for release notices, a timer
 * for renewals and re-checks, a notice thread for lease and connection-state listeners, an event
 * thread for async results (kept apart, so a user's callback that blocks on an async result never
 * holds back a SUSPECT or LOST that must be heard before another client is granted), and the leases and
 * waiters that {@link #close()} ends.
 */
public final class RedisSession implements HoldClient {
  private static final Logger log = LoggerFactory.getLogger(RedisSession.class);
  private static final AtomicInteger CLIENTS = new AtomicInteger();
  /** From here on a delay waits on the timer wheel: a tick late is a tenth of it at most. */
  private static final long WHEEL_FROM_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final RedisSettings settings;
  private final RedisLink link;
  private final ReleaseNotices notices;
  private final LinkState linkState;
  private final ScheduledExecutorService timer;
  private final ExecutorService events;
  private final ExecutorService noticeThread;
  private final String clientId = UUID.randomUUID().toString();
  private final String host = hostName();
  private final long pid = ProcessHandle.current().pid();
  private final long processStart = ManagementFactory.getRuntimeMXBean().getStartTime();
  private final AtomicLong sequence = new AtomicLong();
  // The scripts' arguments in the form they travel, made once rather than on every attempt.
  private final String leaseTtlArg;
  private final String waiterLeaseArg;
  private final Set<Held> holds = ConcurrentHashMap.newKeySet();
  private final Set<Waiter> waiting = ConcurrentHashMap.newKeySet();
  /** Weakly: a cohort lives as long as its mutex object, which the user may drop at any time. */
  private final Set<LocalQueue> cohorts = java.util.Collections.synchronizedSet(
      java.util.Collections.newSetFromMap(new java.util.WeakHashMap<>()));
  private volatile boolean closed;

  private RedisSession(RedisSettings settings, RedisLink link) {
    this.settings = settings;
    this.leaseTtlArg = Long.toString(settings.leaseTtl().toMillis());
    this.waiterLeaseArg = Long.toString(settings.waiterLease().toMillis());
    this.link = link;
    int n = CLIENTS.incrementAndGet();
    ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1, daemon("baton-redis-timer-" + n));
    scheduler.setRemoveOnCancelPolicy(true);
    this.timer = scheduler;
    this.events = Executors.newSingleThreadExecutor(daemon("baton-redis-events-" + n));
    this.noticeThread = Executors.newSingleThreadExecutor(daemon("baton-redis-notices-" + n));
    this.notices = new ReleaseNotices(link.pubSub(), scheduler, settings.waiterLease().toMillis());
    this.linkState = new LinkState(link.address(), settings.leaseTtl(), scheduler);
    link.pubSub().addListener(notices);
  }

  /**
   * Connects as {@code settings} say: to a Redis Cluster for {@code redis-cluster://}, else to one
   * server or the master Sentinel names.
   */
  public static RedisSession open(RedisSettings settings) {
    RedisSession session = new RedisSession(settings, RedisLink.open(settings));
    session.link.addListener(session.new ConnectionWatch());
    session.warnIfKeysMayBeEvicted();
    return session;
  }

  /**
   * Warns once, without delaying the connect, if the server may evict keys under memory pressure: an
   * evicted lock key lets a second holder in while the first still reads its lease as valid, and an
   * evicted counter sends tokens back to the clock's floor. A server that refuses {@code CONFIG}
   * (managed services often rename it) is not judged.
   */
  private void warnIfKeysMayBeEvicted() {
    link.commands().configGet("maxmemory-policy").whenComplete((config, error) -> {
      if (error != null) {
        log.debug("Could not read maxmemory-policy of Redis at {}: {}", link.address(), error.toString());
        return;
      }
      String policy = config == null ? null : config.get("maxmemory-policy");
      if (policy != null && !policy.equalsIgnoreCase("noeviction")) {
        log.warn("Redis at {} has maxmemory-policy {}: under memory pressure it may evict a lock's key, and a"
            + " second client then gets a lock that is still held. Set maxmemory-policy noeviction on servers"
            + " that hold locks.", link.address(), policy);
      }
    });
  }

  public String address() {
    return link.address();
  }

  /** The connection's state; see {@link LinkState}. */
  public ConnectionState connectionState() {
    return linkState.state();
  }

  /** Since when the connection has been down, while it is. */
  public Optional<Instant> disconnectedSince() {
    return linkState.downSince();
  }

  /** Tells {@code listener} each change of state on {@code executor}, or on the client's notice thread if {@code null}. */
  public void addStateListener(ConnectionStateListener listener, Executor executor) {
    linkState.addListener(listener, executor == null ? noticeThread : executor);
  }

  public void removeStateListener(ConnectionStateListener listener) {
    linkState.removeListener(listener);
  }

  public void checkOpen() {
    if (closed) {
      throw closedException();
    }
  }

  public ClientClosedException closedException() {
    return new ClientClosedException("Redis at " + link.address(), "RedisBaton.connect");
  }

  public boolean isClosed() {
    return closed;
  }

  public RedisSettings settings() {
    return settings;
  }

  /** The commands every lock shares; see {@link RedisLink#commands()}. */
  public RedisClusterAsyncCommands<String, String> commands() {
    return link.commands();
  }

  /** Runs {@code work} where a lock that waits for replicas sends its commands; see {@link RedisLink#replicated}. */
  public <T> CompletableFuture<T> replicated(String key,
      Function<RedisClusterAsyncCommands<String, String>, ? extends CompletionStage<T>> work) {
    return link.replicated(key, work);
  }

  /** Gets ready for {@link #replicated} on the caller's thread. */
  public void prepareReplicated(String key) {
    link.prepareReplicated(key);
  }

  /** @throws IllegalArgumentException if the deployment cannot serve {@code keys} in one script */
  public void checkOneSlot(String name, String[] keys) {
    link.checkOneSlot(name, keys);
  }

  public ReleaseNotices notices() {
    return notices;
  }

  public ScheduledExecutorService timer() {
    return timer;
  }

  /** Where async results complete (and, through them, the user's callbacks chained on them). */
  public ExecutorService events() {
    return events;
  }

  /**
   * Where lease and connection-state listeners run by default: no async result completes here, so
   * a callback chained on one cannot delay a loss notice.
   */
  public ExecutorService noticeExecutor() {
    return noticeThread;
  }

  /** The lease TTL in milliseconds, as the scripts take it. */
  public String leaseTtlArg() {
    return leaseTtlArg;
  }

  /** The waiter lease in milliseconds, as the acquire script takes it. */
  public String waiterLeaseArg() {
    return waiterLeaseArg;
  }

  /** A new owner id for one acquisition: {@code <client id>:<sequence>}. */
  public String nextOwnerId() {
    return clientId + ":" + sequence.incrementAndGet();
  }

  public String member(String ownerId, Thread thread) {
    return OwnerRecord.member(ownerId, host, pid, processStart, ThreadLabels.of(thread));
  }

  public void register(Held hold) {
    holds.add(hold);
  }

  public void unregister(Held hold) {
    holds.remove(hold);
  }

  public void register(LocalQueue cohort) {
    cohorts.add(cohort);
  }

  public void register(Waiter acquisition) {
    waiting.add(acquisition);
  }

  public void unregister(Waiter acquisition) {
    waiting.remove(acquisition);
  }

  /** A lock this client holds, whichever recipe's: told when the connection drops, renewed when it is back, released on close. */
  public interface Held {
    /** The connection dropped: no decision should be taken on the lease until a renewal succeeds. */
    void connectionLost();

    /** The connection is back: renew now rather than at the next period. */
    void renewSoon();

    /** Releases as the client closes; the future completes once the server answered (or gave up). */
    CompletableFuture<?> releaseOnClose();
  }

  /** A waiter of any recipe: woken by its release notices and when the connection is back, failed on close. */
  public interface Waiter {
    /** Its order among this client's waiters: the first of a lock is woken by a notice that names nobody. */
    long sequence();

    /** Its queue entry, as a notice that names a waiter names it. */
    String member();

    /** A release notice, a reconnection or the timer: try now. */
    void wake();

    /**
     * A notice on a channel joined with {@link ReleaseNotices#joinDirect} that names this waiter:
     * {@code message} is what came before its name (a grant made to it, for a semaphore).
     */
    default void notified(String message) {
      wake();
    }

    /** Ends the wait with {@code error} (timeout, interrupt, cancel, close) if it has not ended. */
    void giveUp(Throwable error);
  }

  /** Threads of this client queued inside it (a local cohort): failed on close. */
  public interface LocalQueue {
    void failAll(Throwable error);
  }

  /** A task {@link #later} holds until it is due. */
  public interface Pending {
    /** Stops the task if it has not started; it may still run if it has. */
    void cancel();
  }

  /**
   * Runs {@code task} on the timer after {@code delayNanos}, unless cancelled first or the client
   * has closed; {@code null} if it has closed already. A delay of a second or more waits on the
   * client's timer wheel ({@link RedisLink#wheel()}) and runs up to a tick (100 ms) late: the
   * timer's own queue wakes its thread whenever a new task comes first, which on an uncontended
   * lock is every grant (its renewal, cancelled by the release), a tenth of the lock's cycle as
   * measured. Shorter delays, where a tick would matter, keep the exact timer.
   */
  public Pending later(Runnable task, long delayNanos) {
    if (closed) {
      return null;
    }
    try {
      if (delayNanos >= WHEEL_FROM_NANOS) {
        // The wheel's thread only hands the task over: it also times out every command.
        io.netty.util.Timeout due = link.wheel().newTimeout(t -> schedule(task, 0), delayNanos, TimeUnit.NANOSECONDS);
        return due::cancel;
      }
      ScheduledFuture<?> due = timer.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
      return () -> due.cancel(false);
    } catch (java.util.concurrent.RejectedExecutionException | IllegalStateException e) {
      return null; // the timer or the wheel stopped: the client closed meanwhile
    }
  }

  /**
   * Sends {@code command} again after a transient failure (50 ms, doubling to a second) while
   * {@code worthItUntil} (a {@link System#nanoTime} reading) has not passed and the client is open;
   * the future completes once it succeeded, failed for good, or stopped being worth it. For the
   * clean-up commands (a release, a withdrawal) whose loss would leave a key to its TTL.
   */
  public CompletableFuture<Void> sendUntilDone(java.util.function.Supplier<CompletableFuture<?>> command,
      java.util.function.LongSupplier worthItUntil) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    sendUntilDone(command, worthItUntil, done, 0);
    return done;
  }

  private void sendUntilDone(java.util.function.Supplier<CompletableFuture<?>> command,
      java.util.function.LongSupplier worthItUntil, CompletableFuture<Void> done, int attempt) {
    command.get().whenComplete((reply, error) -> {
      if (error == null) {
        done.complete(null);
      } else if (RedisErrors.isTransient(error) && worthItUntil.getAsLong() - System.nanoTime() > 0 && !closed) {
        schedule(() -> sendUntilDone(command, worthItUntil, done, attempt + 1), Math.min(1000, 50L << Math.min(attempt, 4)));
      } else {
        done.completeExceptionally(error);
      }
    });
  }

  /** Runs {@code task} on the timer unless the client is closed. */
  public void schedule(Runnable task, long delayMillis) {
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
    List<LocalQueue> localQueues;
    synchronized (cohorts) {
      localQueues = List.copyOf(cohorts);
    }
    localQueues.forEach(cohort -> cohort.failAll(error));
    for (Waiter acquisition : List.copyOf(waiting)) {
      acquisition.giveUp(error);
    }
    List<CompletableFuture<?>> releases = new ArrayList<>();
    for (Held hold : List.copyOf(holds)) {
      releases.add(hold.releaseOnClose());
    }
    try {
      CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new))
          .get(settings.commandTimeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      log.warn("Not every lock of the client for {} was released before it closed; they expire with their TTL",
          link.address());
    }
    timer.shutdownNow();
    events.shutdown();
    noticeThread.shutdown();
    link.close();
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
      if (link.carriesCommands(channel)) {
        linkState.connected(channel);
        holds.forEach(Held::renewSoon);
      }
      // Release notices sent while the connection was down are lost: look again.
      waiting.forEach(Waiter::wake);
    }

    @Override
    public void onRedisDisconnected(RedisChannelHandler<?, ?> channel) {
      if (link.carriesCommands(channel) && !closed) {
        linkState.disconnected(channel);
        holds.forEach(Held::connectionLost);
      }
    }
  }
}
