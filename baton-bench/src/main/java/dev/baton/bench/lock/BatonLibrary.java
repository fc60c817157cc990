package dev.baton.bench.lock;

import dev.baton.Baton;
import dev.baton.Lease;
import dev.baton.Mutex;
import dev.baton.MutexOptions;
import java.time.Duration;

/**
 * Baton's reentrant {@link Mutex}: {@code mutex.acquire()}, then {@code lease.close()}. Session
 * and connection timeouts as given to Curator, so both ask the server for the same session.
 */
public final class BatonLibrary implements LockLibrary {
  private final MutexOptions options;

  /** The default mode: one node per acquisition. */
  public BatonLibrary() {
    this(MutexOptions.defaults());
  }

  public BatonLibrary(MutexOptions options) {
    this.options = options;
  }

  @Override
  public LockClient connect(String connectString) {
    Baton baton = Baton.builder()
        .connectString(connectString)
        .sessionTimeout(Duration.ofSeconds(30))
        .connectionTimeout(Duration.ofSeconds(15))
        .build();
    return new Client(baton, options);
  }

  private record Client(Baton baton, MutexOptions options) implements LockClient {
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
      // One getChildren (plus a getData per child; the path is idle when this is called).
      baton.mutex(path).holder();
    }

    @Override
    public void close() {
      baton.close();
    }
  }
}
