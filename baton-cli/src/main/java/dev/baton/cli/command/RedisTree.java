package dev.baton.cli.command;

import dev.baton.lock.LockOwner;
import dev.baton.redis.RedisBaton;
import dev.baton.redis.RedisLockLayout;
import dev.baton.redis.RedisMutexOptions;
import io.lettuce.core.KeyScanArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@code baton tree --redis} lists: the recipes whose keys are in Redis, found by the keys
 * Baton's and Redisson's layouts use, grouped by kind, each with its holder. A recipe Baton ever
 * granted keeps its fencing counter ({@code baton_lock_token:{name}} and the like), so it is listed
 * free after its release; a lock only Redisson took shows while it is held (its hash) and is gone
 * with its release, as Redisson keeps nothing more. The console of a Redis server finds what it
 * shows here too ({@link #find}).
 */
public final class RedisTree {
  private RedisTree() {}

  /** The kinds, in the order they are printed. */
  public enum Kind {
    MUTEX("mutex"), READ_WRITE_LOCK("read-write lock"), SEMAPHORE("semaphore"), FENCE("fence");

    final String label;

    /** As the console and the listings name the kind: {@code mutex}, {@code read-write lock}, ... */
    public String label() {
      return label;
    }

    Kind(String label) {
      this.label = label;
    }
  }

  /** One recipe found: its kind, name, layout ({@code baton}, {@code redisson}, or for a mutex the lock layout) and what it holds. */
  record Recipe(Kind kind, String name, String layout, String detail) {}

  /**
   * One recipe found by its keys: its kind, name and layout ({@code baton} or {@code redisson}; for a
   * mutex the lock layout, {@code plain} or {@code redisson}).
   */
  public record Found(Kind kind, String name, String layout) {}

  /** A name in a key: {@code {name}} is the hash tag Baton added; a name with braces of its own has none. */
  private static final Pattern TAGGED = Pattern.compile("^\\{([^{}]*)\\}$", Pattern.DOTALL);

  private static final Map<String, Kind> COUNTERS = Map.of(
      "baton_lock_token:", Kind.MUTEX,
      "redisson_lock_token:", Kind.MUTEX,
      "baton_rwlock_token:", Kind.READ_WRITE_LOCK,
      "baton_sem_token:", Kind.SEMAPHORE,
      "baton_fence:", Kind.FENCE);

  /** Lists the recipes whose names match the glob {@code pattern} ({@code *} any characters, {@code ?} one). */
  static List<Recipe> list(RedisBaton baton, RedisConnectOptions options, Duration timeout, String pattern) {
    Pattern wanted = glob(pattern);
    RedisClient client = RedisClient.create(
        RedisConnectOptions.login(RedisURI.create(options.uri), options.user, options.password, timeout));
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      RedisClusterCommands<String, String> redis = connection.sync();
      List<Recipe> recipes = new ArrayList<>();
      for (Found found : find(redis, Integer.MAX_VALUE)) {
        if (wanted.matcher(found.name()).matches()) {
          recipes.add(new Recipe(found.kind(), found.name(), found.layout(),
              detail(baton, redis, found.kind(), found.name(), found.layout())));
        }
      }
      return recipes;
    } finally {
      client.shutdown(Duration.ZERO, timeout);
    }
  }

  /**
   * The recipes whose keys {@code redis} holds, by kind (in {@link Kind}'s order), then name. At
   * most {@code limit} keys are read from each of the two scans ({@code SCAN}, never {@code KEYS};
   * over every master of a cluster when {@code redis} is a cluster's). A server that cannot be read
   * fails with Lettuce's exception, after the connection's timeout.
   */
  public static List<Found> find(RedisClusterCommands<String, String> redis, int limit) {
    // kind -> name -> layout; TreeMaps so that the listing is sorted.
    Map<Kind, Map<String, String>> found = new TreeMap<>();
    for (String key : scan(redis, null, limit)) {
      for (Map.Entry<String, Kind> counter : COUNTERS.entrySet()) {
        if (key.startsWith(counter.getKey())) {
          String name = untagged(key.substring(counter.getKey().length()));
          String layout = counter.getKey().startsWith("redisson") ? "redisson" : counter.getValue() == Kind.MUTEX ? "plain" : "baton";
          found.computeIfAbsent(counter.getValue(), k -> new TreeMap<>()).put(name, layout);
        }
      }
      // Redisson's semaphore: its permits in the sorted set {name}:timeout.
      if (key.endsWith(":timeout") && !key.startsWith("baton_") && !key.startsWith("redisson_")) {
        String name = untagged(key.substring(0, key.length() - ":timeout".length()));
        if (!name.isEmpty() && "zset".equals(redis.type(key))) {
          found.computeIfAbsent(Kind.SEMAPHORE, k -> new TreeMap<>()).putIfAbsent(name, "redisson");
        }
      }
    }
    // Redisson's locks held now: hashes of their own name, a read-write lock's with the field mode.
    for (String key : scan(redis, "hash", limit)) {
      if (key.startsWith("baton_") || key.startsWith("redisson_")) {
        continue;
      }
      Kind kind = redis.hexists(key, "mode") ? Kind.READ_WRITE_LOCK : Kind.MUTEX;
      boolean batons = found.getOrDefault(kind, Map.of()).containsKey(key);
      if (!batons && (kind == Kind.READ_WRITE_LOCK || looksLikeRedissonLock(redis.hkeys(key)))) {
        found.computeIfAbsent(kind, k -> new TreeMap<>()).put(key, "redisson");
      }
    }
    List<Found> recipes = new ArrayList<>();
    found.forEach((kind, names) -> names.forEach((name, layout) -> recipes.add(new Found(kind, name, layout))));
    return recipes;
  }

  /** Redisson's RLock hash: one field per holder, {@code <client uuid>:<thread id>}. */
  private static boolean looksLikeRedissonLock(List<String> fields) {
    return !fields.isEmpty() && fields.stream().allMatch(f -> f.matches("[0-9a-fA-F-]{36}:\\d+"));
  }

  private static String detail(RedisBaton baton, RedisClusterCommands<String, String> redis, Kind kind, String name,
      String layout) {
    return switch (kind) {
      case MUTEX -> {
        var mutex = baton.mutex(name, RedisMutexOptions.defaults()
            .withLayout(layout.equals("redisson") ? RedisLockLayout.REDISSON : RedisLockLayout.PLAIN));
        int waiting = mutex.waiters().size();
        yield mutex.holder().map(h -> "held by " + owner(h)).orElse("free")
            + ", " + (waiting == 0 ? "nobody waiting" : waiting + " waiting");
      }
      case READ_WRITE_LOCK -> {
        List<LockOwner> holders = baton.readWriteLock(name).holders();
        String mode = redis.hget(name, "mode");
        yield holders.isEmpty() ? "free" : "write".equals(mode) ? "written by " + owner(holders.get(0))
            : holders.size() + (holders.size() == 1 ? " reader" : " readers");
      }
      case SEMAPHORE -> {
        // Reading the holders does not depend on the number of permits, which Redis does not keep.
        List<LockOwner> holders = baton.semaphore(name, 1).holders();
        String available = redis.get(name);
        yield (holders.isEmpty() ? "no permit held" : holders.size() + (holders.size() == 1 ? " permit held" : " permits held"))
            + (available == null ? "" : ", " + available + " available");
      }
      case FENCE -> "highest token " + redis.get(fenceKey(name)) + " written to " + name;
    };
  }

  private static String fenceKey(String name) {
    return name.contains("{") ? "baton_fence:" + name : "baton_fence:{" + name + "}";
  }

  static String owner(LockOwner owner) {
    if (owner.host().isEmpty()) {
      return owner.node(); // a Redisson holder: its client and thread id are all there is
    }
    return owner.host() + (owner.pid() > 0 ? " pid " + owner.pid() : "") + " token " + owner.fencingToken();
  }

  /** The name in a key's tail: {@code {name}} is the hash tag Baton added; a name with braces of its own has none. */
  public static String untagged(String tagged) {
    Matcher m = TAGGED.matcher(tagged);
    return m.matches() ? m.group(1) : tagged;
  }

  /** The keys of {@code type} (null: every key), at most {@code limit}; over every master on a cluster. */
  private static List<String> scan(RedisClusterCommands<String, String> redis, String type, int limit) {
    KeyScanArgs args = KeyScanArgs.Builder.limit(1000);
    if (type != null) {
      args.type(type);
    }
    List<String> keys = new ArrayList<>();
    ScanIterator<String> iterator = ScanIterator.scan(redis, args);
    while (iterator.hasNext() && keys.size() < limit) {
      keys.add(iterator.next());
    }
    return keys;
  }

  /** A glob ({@code *}, {@code ?}) as a regular expression; {@code /} alone means every name. */
  static Pattern glob(String pattern) {
    if (pattern.equals("/")) {
      return Pattern.compile("(?s).*");
    }
    StringBuilder regex = new StringBuilder("(?s)");
    for (char c : pattern.toCharArray()) {
      regex.append(c == '*' ? ".*" : c == '?' ? "." : Pattern.quote(String.valueOf(c)));
    }
    return Pattern.compile(regex.toString());
  }
}
