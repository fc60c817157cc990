package dev.baton.cli.demo;

import dev.baton.cli.command.CliException;
import dev.baton.cli.command.DurationConverter;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The demo's stock in a Redis string key, through a plain Lettuce connection of its own: Baton
 * locks, and the application talks to its data store directly. The fenced write is one Lua script,
 * so the check of the token and the write cannot be split by another writer.
 */
public final class RedisStock implements StockStore {
  // KEYS[1] the stock; ARGV[1] the new count, ARGV[2] the writer's token. 1 if written, 0 if the
  // stock already holds a higher fence.
  private static final String WRITE_FENCED = String.join("\n",
      "local now = redis.call('GET', KEYS[1])",
      "local fence = 0",
      "if now then",
      "  local comma = string.find(now, ',', 1, true)",
      "  if comma then fence = tonumber(string.sub(now, comma + 1)) end",
      "end",
      "if tonumber(ARGV[2]) < fence then return 0 end",
      "redis.call('SET', KEYS[1], ARGV[1] .. ',' .. ARGV[2])",
      "return 1");

  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final RedisCommands<String, String> commands;
  private final String uri;

  private RedisStock(RedisClient client, StatefulRedisConnection<String, String> connection, String uri) {
    this.client = client;
    this.connection = connection;
    this.commands = connection.sync();
    this.uri = uri;
  }

  /** Connects, waiting at most {@code timeout} for the server to answer. */
  static RedisStock connect(String uri, Duration timeout) {
    RedisURI parsed = RedisURI.create(uri);
    parsed.setTimeout(timeout);
    RedisClient client = RedisClient.create(parsed);
    try {
      return new RedisStock(client, client.connect(), uri);
    } catch (RedisException e) {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
      throw new CliException("No Redis server answered at " + uri + " within "
          + DurationConverter.seconds(timeout) + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void create(String key, int count) {
    call(key, () -> commands.set(key, Integer.toString(count)));
  }

  @Override
  public Stock readStock(String key) {
    String value = call(key, () -> commands.get(key));
    if (value == null) {
      throw new CliException("The stock key " + key + " is gone from Redis at " + uri
          + " (restarted without persistence?)");
    }
    return Stock.parse(value, 0);
  }

  @Override
  public void write(String key, int count) {
    call(key, () -> commands.set(key, Integer.toString(count)));
  }

  @Override
  public boolean writeFenced(String key, int count, long token, Stock seen) {
    Long written = call(key, () -> commands.eval(WRITE_FENCED, ScriptOutputType.INTEGER,
        new String[] {key}, Integer.toString(count), Long.toString(token)));
    return written != null && written == 1L;
  }

  /** Deletes every key whose name contains {@code root}: the stock and the lock's own keys. */
  @Override
  public void deleteTree(String root) {
    try {
      List<String> keys = new ArrayList<>();
      ScanIterator.scan(commands, ScanArgs.Builder.matches("*" + root + "*").limit(500)).forEachRemaining(keys::add);
      if (!keys.isEmpty()) {
        commands.del(keys.toArray(String[]::new));
      }
    } catch (RedisException e) {
      // Best effort: a leftover demo key must not turn a finished run into a failure.
    }
  }

  @Override
  public void close() {
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }

  private <T> T call(String key, java.util.function.Supplier<T> command) {
    try {
      return command.get();
    } catch (RedisException e) {
      throw new CliException("Redis at " + uri + " failed an operation on " + key + ": " + e.getMessage(), e);
    }
  }
}
