package dev.baton.bench.lock;

import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import dev.baton.redis.RedisBaton;
import dev.baton.redis.RedisMutexOptions;
import java.util.function.Supplier;

/**
 * Baton on Redis: {@code acquire()}, then {@code lease.close()}; 30 s TTL, as Redisson's watchdog.
 * The {@link Mutex} by default; the read lock of {@code readWriteLock(name)} or a {@code
 * semaphore(name, 3)} for the other recipes.
 */
public final class RedisBatonLibrary implements LockLibrary {
  private final RedisMutexOptions options;
  private final Recipe recipe;

  public RedisBatonLibrary(RedisMutexOptions options) {
    this.options = options;
    this.recipe = Recipe.MUTEX;
  }

  /** Another recipe than the mutex, in its default mode. */
  public RedisBatonLibrary(Recipe recipe) {
    this.options = RedisMutexOptions.defaults();
    this.recipe = recipe;
  }

  @Override
  public boolean onRedis() {
    return true;
  }

  @Override
  public int holdersAllowed() {
    return recipe.holdersAllowed();
  }

  @Override
  public LockClient connect(String uri) {
    RedisBaton baton = RedisBaton.connect(uri);
    return new LockClient() {
      @Override
      public BenchLock lock(String path) {
        Supplier<Lease> acquire = switch (recipe) {
          case MUTEX -> baton.mutex(path, options)::acquire;
          case READ_LOCK -> baton.readWriteLock(path).readLock()::acquire;
          case SEMAPHORE_3 -> baton.semaphore(path, 3)::acquire;
        };
        return () -> {
          Lease lease = acquire.get();
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
