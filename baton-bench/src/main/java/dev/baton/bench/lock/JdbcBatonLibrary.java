package dev.baton.bench.lock;

import dev.baton.jdbc.JdbcBaton;
import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import dev.baton.lock.MutexOptions;

/**
 * Baton's {@link Mutex} on PostgreSQL: {@code mutex.acquire()}, then {@code lease.close()}; one
 * {@link JdbcBaton} per client with its own pool made from the URL, default settings (30 s lease
 * TTL renewed while held, waiters woken by LISTEN/NOTIFY), lock table made by {@code createSchema};
 * the mutex with {@link MutexOptions} if given (caching, local hand-over).
 */
public final class JdbcBatonLibrary implements LockLibrary {
  private final MutexOptions options;

  public JdbcBatonLibrary() {
    this(MutexOptions.defaults());
  }

  public JdbcBatonLibrary(MutexOptions options) {
    this.options = options;
  }
  @Override
  public boolean onJdbc() {
    return true;
  }

  @Override
  public LockClient connect(String url) {
    JdbcBaton baton = JdbcBaton.builder().url(url).createSchema(true).build();
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
