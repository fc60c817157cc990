package dev.baton.bench.lock;

import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson's {@code RLock} (its watchdog keeps the 30 s lease): {@code lock()}, then {@code
 * unlock()} on the same thread, as Redisson requires. One client is one {@link RedissonClient}.
 */
public final class RedissonLibrary implements LockLibrary {
  @Override
  public boolean onRedis() {
    return true;
  }

  @Override
  public LockClient connect(String uri) {
    Config config = new Config();
    config.useSingleServer().setAddress(uri);
    RedissonClient redisson = Redisson.create(config);
    return new LockClient() {
      @Override
      public BenchLock lock(String path) {
        RLock lock = redisson.getLock(path);
        return () -> {
          lock.lock();
          return lock::unlock;
        };
      }

      @Override
      public void roundTrip(String path) {
        redisson.getLock(path).isLocked();
      }

      @Override
      public void close() {
        redisson.shutdown();
      }
    };
  }
}
