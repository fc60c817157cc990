package dev.baton.bench.lock;

import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import dev.baton.redis.RedisBaton;
import dev.baton.redis.RedisMutexOptions;

/** Baton's {@link Mutex} on Redis: {@code mutex.acquire()}, then {@code lease.close()}; 30 s TTL, as Redisson's watchdog. */
public final class RedisBatonLibrary implements LockLibrary {
  private final RedisMutexOptions options;

  public RedisBatonLibrary(RedisMutexOptions options) {
    this.options = options;
  }

  @Override
  public boolean onRedis() {
    return true;
  }

  @Override
  public LockClient connect(String uri) {
    RedisBaton baton = RedisBaton.connect(uri);
    return new LockClient() {
      @Override
      public BenchLock lock(String path) {
        Mutex mutex = baton.mutex(path, options);
        return () -> {
          Lease lease = mutex.acquire();
          return lease::close;
        };
      }

      @Override
      public void roundTrip(String path) {
        baton.mutex(path).holder();
      }

      @Override
      public void close() {
        baton.close();
      }
    };
  }
}
