package dev.baton.cli.console;

import dev.baton.cli.command.JsonOutput;
import dev.baton.cli.command.RedisConnectOptions;
import dev.baton.cli.command.RedisTree;
import dev.baton.lock.LockOwner;
import dev.baton.lock.Mutex;
import dev.baton.lock.ReadWriteLock;
import dev.baton.redis.RedisBaton;
import dev.baton.redis.RedisLockLayout;
import dev.baton.redis.RedisMutexOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * What {@code baton console --redis} shows: every mutex, read-write lock and semaphore on one Redis
 * server, with its holders (host, pid, thread, fencing token, since when), its waiters in line and
 * the time left on the lock key. They are found as {@code baton tree --redis} finds them ({@link
 * RedisTree#find}): by the fencing counter Baton keeps for good beside each recipe ({@code
 * baton_lock_token:{name}}, {@code redisson_lock_token:{name}}, {@code baton_rwlock_token:{name}},
 * {@code baton_sem_token:{name}}), and by the shape of Redisson's keys (an RLock's hash, a
 * read-write lock's hash with its {@code mode} field, a semaphore's {@code {name}:timeout} sorted
 * set); holders and waiters are then read through Baton's own recipes, so every layout is read as
 * the library writes it. A plain string key set by hand ({@code SET name value NX}) is not found:
 * nothing tells it from any other string key.
 *
 * <p>On a Redis Cluster the {@code SCAN} goes over every master (Lettuce's cluster-wide scan) and
 * each lock's keys are read from its slot's master.
 *
 * <p>Redis has no watch to follow (keyspace notifications are off unless the server is configured
 * for them), so the picture is read again every {@link #POLL}, with {@code SCAN}, never {@code
 * KEYS}; at most {@link #MAX_LOCKS} locks are shown.
 */
final class RedisConsoleModel implements ConsoleView {
  static final Duration POLL = Duration.ofSeconds(1);
  static final int MAX_LOCKS = 500;
  private final RedisBaton baton;
  private final String shown;
  private final RedisClusterCommands<String, String> commands;
  private final AutoCloseable connection;
  private final ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor(runnable -> {
    Thread thread = new Thread(runnable, "baton-console-redis-poll");
    thread.setDaemon(true);
    return thread;
  });
  private volatile Picture latest = new Picture(List.of(), false, null, 0);

  /** One reading of the server. */
  private record Picture(List<Object> locks, boolean synced, String problem, int found) {}

  /**
   * Over {@code baton} (holders and waiters) and {@code commands} (SCAN, PTTL), both of the server
   * shown as {@code shown}; {@code connection} (of the commands) is closed with this, {@code baton} is not.
   */
  RedisConsoleModel(RedisBaton baton, RedisClusterCommands<String, String> commands, AutoCloseable connection, String shown) {
    this.baton = baton;
    this.shown = shown;
    this.commands = commands;
    this.connection = connection;
  }

  /**
   * Over {@code baton} and a plain connection of its own to {@code uri} (a server, a Sentinel-watched
   * master, or a cluster's seeds), logged in as {@code user} with {@code password} (either may be null).
   */
  static RedisConsoleModel open(RedisBaton baton, String uri, String user, String password, Duration timeout) {
    String shown = ConsoleCommand.shown(uri);
    if (RedisConnectOptions.isCluster(uri)) {
      String scheme = uri.startsWith("rediss-cluster://") ? "rediss://" : "redis://";
      List<RedisURI> seeds = new ArrayList<>();
      for (String seed : uri.substring(uri.indexOf("://") + 3).split(",")) {
        seeds.add(RedisConnectOptions.login(RedisURI.create(scheme + seed.trim()), user, password, timeout));
      }
      RedisClusterClient client = RedisClusterClient.create(seeds);
      try {
        StatefulRedisClusterConnection<String, String> cluster = client.connect();
        return new RedisConsoleModel(baton, cluster.sync(), () -> {
          cluster.close();
          client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }, shown);
      } catch (RuntimeException e) {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        throw e;
      }
    }
    RedisClient client = RedisClient.create(RedisConnectOptions.login(RedisURI.create(uri), user, password, timeout));
    try {
      StatefulRedisConnection<String, String> server = client.connect();
      return new RedisConsoleModel(baton, server.sync(), () -> {
        server.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }, shown);
    } catch (RuntimeException e) {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
      throw e;
    }
  }

  @Override
  public void start(Runnable onChange, Duration initialLoad) {
    latest = read();
    baton.addConnectionStateListener(state -> onChange.run());
    poller.scheduleWithFixedDelay(() -> {
      latest = read();
      onChange.run();
    }, POLL.toMillis(), POLL.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public Map<String, Object> snapshot() {
    Picture picture = latest;
    Map<String, Object> state = new LinkedHashMap<>();
    state.put("root", shown);
    state.put("backend", "Redis");
    state.put("connection", baton.connectionState().toString());
    state.put("synced", picture.synced());
    state.put("now", System.currentTimeMillis());
    state.put("locks", picture.locks());
    for (String group : List.of("elections", "services", "queues", "others")) {
      state.put(group, List.of());
    }
    if (picture.problem() != null) {
      state.put("problem", picture.problem());
    }
    if (picture.found() > MAX_LOCKS) {
      state.put("truncated", "showing " + MAX_LOCKS + " of " + picture.found() + " locks");
    }
    return state;
  }

  /** Every lock's view, in name order; the last picture, marked not synced, when the server cannot be read. */
  private Picture read() {
    try {
      // A fence is no lock: it has no holder, only the highest token written.
      List<RedisTree.Found> found = RedisTree.find(commands, 10 * MAX_LOCKS).stream()
          .filter(f -> f.kind() != RedisTree.Kind.FENCE)
          .sorted(Comparator.comparing(RedisTree.Found::name).thenComparing(RedisTree.Found::kind))
          .toList();
      List<Object> locks = new ArrayList<>();
      for (RedisTree.Found lock : found) {
        if (locks.size() == MAX_LOCKS) {
          break;
        }
        locks.add(view(lock));
      }
      return new Picture(List.copyOf(locks), true, null, found.size());
    } catch (RuntimeException e) {
      Picture last = latest;
      return new Picture(last.locks(), false, "cannot read " + shown + ": " + e.getMessage(), last.found());
    }
  }

  private Map<String, Object> view(RedisTree.Found lock) {
    String name = lock.name();
    Map<String, Object> view = new LinkedHashMap<>();
    view.put("path", name);
    view.put("kind", lock.kind().label());
    view.put("layout", lock.layout());
    try {
      List<LockOwner> holders;
      List<LockOwner> waiters;
      switch (lock.kind()) {
        case MUTEX -> {
          Mutex mutex = baton.mutex(name, RedisMutexOptions.defaults()
              .withLayout(lock.layout().equals("redisson") ? RedisLockLayout.REDISSON : RedisLockLayout.PLAIN));
          holders = mutex.holder().map(List::of).orElse(List.of());
          waiters = mutex.waiters();
        }
        case READ_WRITE_LOCK -> {
          ReadWriteLock rw = baton.readWriteLock(name);
          holders = rw.holders();
          waiters = rw.waiters();
          view.put("mode", holders.isEmpty() ? null : commands.hget(name, "mode"));
        }
        default -> {
          // Reading the holders does not depend on the number of permits, which Redis does not keep.
          holders = baton.semaphore(name, 1).holders();
          waiters = List.of();
        }
      }
      view.put("holders", holders.stream().map(RedisConsoleModel::owner).toList());
      view.put("waiters", waiters.stream().map(RedisConsoleModel::owner).toList());
      // The lock key's time to live; a semaphore's permits expire one by one, not with a key.
      Long ttl = lock.kind() == RedisTree.Kind.SEMAPHORE ? null : commands.pttl(name);
      // PTTL: -2 no key (free), -1 no expiry (a hand-written lock without PX).
      view.put("expiresAtMillis", !holders.isEmpty() && ttl != null && ttl >= 0 ? System.currentTimeMillis() + ttl : null);
    } catch (RuntimeException e) {
      view.put("holders", List.of());
      view.put("waiters", List.of());
      view.put("error", e.getMessage());
    }
    return view;
  }

  private static Map<String, Object> owner(LockOwner o) {
    Map<String, Object> owner = JsonOutput.owner(o);
    owner.put("queuedAtMillis", o.queuedAt().toEpochMilli());
    return owner;
  }

  @Override
  public void close() {
    poller.shutdownNow();
    try {
      connection.close();
    } catch (Exception e) {
      // The console is going away; nothing to tell.
    }
  }
}
