package dev.baton.bench.lock;

import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson's recipes, one {@link RedissonClient} per client: {@code RLock} (its watchdog keeps the
 * 30 s lease) by default, {@code lock()} then {@code unlock()} on the same thread, as Redisson
 * requires; or the read lock of an {@code RReadWriteLock}, or a semaphore of 3 permits.
 */
public final class RedissonLibrary implements LockLibrary {

  /** What a lock object of this library is. */
  public enum Kind {
    /** {@code getLock(name)}: {@code lock()} / {@code unlock()}. */
    LOCK(1),
    /** {@code getReadWriteLock(name).readLock()}: {@code lock()} / {@code unlock()} (watchdog). */
    READ_LOCK(Integer.MAX_VALUE),
    /**
     * {@code getPermitExpirableSemaphore(name)}, 3 permits ({@code trySetPermits} before the
     * window): {@code acquire(30 s)} / {@code release(id)}; a permit expires with its lease, as
     * Baton's do (Baton renews its permits instead; Redisson's are not renewed).
     */
    EXPIRABLE_SEMAPHORE_3(3),
    /** {@code getSemaphore(name)}, 3 permits: {@code acquire()} / {@code release()}; a permit never expires. */
    SEMAPHORE_3(3);

    private final int holdersAllowed;

    Kind(int holdersAllowed) {
      this.holdersAllowed = holdersAllowed;
    }
  }

  private final Kind kind;

  public RedissonLibrary() {
    this(Kind.LOCK);
  }

  public RedissonLibrary(Kind kind) {
    this.kind = kind;
  }

  @Override
  public boolean onRedis() {
    return true;
  }

  @Override
  public int holdersAllowed() {
    return kind.holdersAllowed;
  }

  @Override
  public LockClient connect(String uri) {
    Config config = new Config();
    config.useSingleServer().setAddress(uri);
    RedissonClient redisson = Redisson.create(config);
    return new LockClient() {
      @Override
      public BenchLock lock(String path) {
        switch (kind) {
          case LOCK, READ_LOCK -> {
            RLock lock = kind == Kind.LOCK ? redisson.getLock(path) : redisson.getReadWriteLock(path).readLock();
            return () -> {
              lock.lock();
              return lock::unlock;
            };
          }
          case EXPIRABLE_SEMAPHORE_3 -> {
            RPermitExpirableSemaphore semaphore = redisson.getPermitExpirableSemaphore(path);
            semaphore.trySetPermits(3); // before the window: lock objects are made before it opens
            return () -> {
              String permit = semaphore.acquire(30, TimeUnit.SECONDS);
              return () -> semaphore.release(permit);
            };
          }
          case SEMAPHORE_3 -> {
            RSemaphore semaphore = redisson.getSemaphore(path);
            semaphore.trySetPermits(3);
            return () -> {
              semaphore.acquire();
              return semaphore::release;
            };
          }
          default -> throw new IllegalStateException(kind.name());
        }
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
