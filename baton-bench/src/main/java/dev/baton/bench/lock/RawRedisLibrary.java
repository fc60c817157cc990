package dev.baton.bench.lock;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The scheme written by hand, on Lettuce, as the floor of the Redis rows: {@code SET key token NX
 * PX 30000}, then the Lua compare-and-delete, waited for or not (the connection keeps the order,
 * so an unwaited release still lands before the next acquire). No fencing token, no renewal, no
 * queue: a taken lock is retried after a short pause, so it serves the uncontended row only.
 */
public final class RawRedisLibrary implements LockLibrary {
  private static final String COMPARE_AND_DELETE =
      "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
  private final boolean releaseWaited;

  public RawRedisLibrary(boolean releaseWaited) {
    this.releaseWaited = releaseWaited;
  }

  @Override
  public boolean onRedis() {
    return true;
  }

  @Override
  public LockClient connect(String uri) {
    RedisClient client = RedisClient.create(uri);
    StatefulRedisConnection<String, String> connection = client.connect();
    RedisAsyncCommands<String, String> commands = connection.async();
    return new LockClient() {
      @Override
      public BenchLock lock(String path) {
        String[] keys = {path};
        return () -> {
          String token = UUID.randomUUID().toString();
          while (!"OK".equals(commands.set(path, token, SetArgs.Builder.nx().px(30_000)).get())) {
            LockSupport.parkNanos(100_000);
          }
          return () -> {
            var released = commands.<Long>eval(COMPARE_AND_DELETE, ScriptOutputType.INTEGER, keys, token);
            if (releaseWaited) {
              released.get();
            }
          };
        };
      }

      @Override
      public void roundTrip(String path) throws Exception {
        commands.exists(path).get();
      }

      @Override
      public void close() {
        connection.close();
        client.shutdown(0, 1, TimeUnit.SECONDS);
      }
    };
  }
}
