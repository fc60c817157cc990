package dev.baton.cli.console;

import dev.baton.cli.command.JsonOutput;
import dev.baton.cli.command.RedisConnectOptions;
import dev.baton.lock.LockOwner;
import dev.baton.lock.Mutex;
import dev.baton.redis.RedisBaton;
import dev.baton.redis.RedisLockLayout;
import dev.baton.redis.RedisMutexOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisKeyCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@code baton console --redis} shows: every Baton lock on one Redis server, with its holder
 * (host, pid, thread, fencing token, since when), its waiters in line and the time left on the
 * lock key. A lock is found by its fencing counter, which Baton keeps for good beside the lock in
 * both layouts: {@code baton_lock_token:{name}} (plain) and {@code redisson_lock_token:{name}}
 * (Redisson's RLock layout); holders and waiters are then read through Baton's own mutex, so both
 * layouts are read as the library writes them.
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
  /** The fencing counters of both layouts; group 1 the layout's prefix, group 2 the name as tagged. */
  private static final Pattern COUNTER = Pattern.compile("^(baton_lock_token|redisson_lock_token):(.+)$", Pattern.DOTALL);
  private static final Pattern TAGGED = Pattern.compile("^\\{([^{}]*)\\}$", Pattern.DOTALL);

  private final RedisBaton baton;
  private final String shown;
  private final RedisKeyCommands<String, String> commands;
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
  RedisConsoleModel(RedisBaton baton, RedisKeyCommands<String, String> commands, AutoCloseable connection, String shown) {
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
      Map<String, RedisLockLayout> names = new TreeMap<>();
      for (String key : scan("*_lock_token:*")) {
        Matcher counter = COUNTER.matcher(key);
        if (counter.matches()) {
          names.put(untagged(counter.group(2)),
              counter.group(1).startsWith("redisson") ? RedisLockLayout.REDISSON : RedisLockLayout.PLAIN);
        }
      }
      List<Object> locks = new ArrayList<>();
      for (Map.Entry<String, RedisLockLayout> lock : names.entrySet()) {
        if (locks.size() == MAX_LOCKS) {
          break;
        }
        locks.add(view(lock.getKey(), lock.getValue()));
      }
      return new Picture(List.copyOf(locks), true, null, names.size());
    } catch (RuntimeException e) {
      Picture last = latest;
      return new Picture(last.locks(), false, "cannot read " + shown + ": " + e.getMessage(), last.found());
    }
  }

  private Map<String, Object> view(String name, RedisLockLayout layout) {
    Map<String, Object> view = new LinkedHashMap<>();
    view.put("path", name);
    view.put("kind", "mutex");
    view.put("layout", layout == RedisLockLayout.REDISSON ? "redisson" : "plain");
    try {
      Mutex mutex = baton.mutex(name, RedisMutexOptions.defaults().withLayout(layout));
      List<Object> holders = mutex.holder().map(RedisConsoleModel::owner).map(List::<Object>of).orElse(List.of());
      view.put("holders", holders);
      view.put("waiters", mutex.waiters().stream().map(RedisConsoleModel::owner).toList());
      Long ttl = commands.pttl(name);
      // PTTL: -2 no key (free), -1 no expiry (a hand-written lock without PX).
      view.put("expiresAtMillis", !holders.isEmpty() && ttl != null && ttl >= 0 ? System.currentTimeMillis() + ttl : null);
    } catch (RuntimeException e) {
      view.put("holders", List.of());
      view.put("waiters", List.of());
      view.put("error", e.getMessage());
    }
    return view;
  }

  /** The lock name inside a key: {@code {name}} is the hash tag Baton added; a name with braces of its own has none. */
  static String untagged(String tagged) {
    Matcher m = TAGGED.matcher(tagged);
    return m.matches() ? m.group(1) : tagged;
  }

  /** The keys matching {@code match}, at most ten times {@link #MAX_LOCKS}; over every master on a cluster. */
  private List<String> scan(String match) {
    List<String> keys = new ArrayList<>();
    ScanIterator<String> iterator = ScanIterator.scan(commands, ScanArgs.Builder.matches(match).limit(1000));
    while (iterator.hasNext() && keys.size() <= 10 * MAX_LOCKS) {
      keys.add(iterator.next());
    }
    return keys;
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
