package dev.baton.bench.lock;

import dev.baton.Baton;
import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import dev.baton.lock.MutexOptions;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * Baton's reentrant {@link Mutex}: {@code mutex.acquire()}, then {@code lease.close()}. Session
 * and connection timeouts as given to Curator, so both ask the server for the same session.
 */
public final class BatonLibrary implements LockLibrary {
  private final MutexOptions options;
  private final Recipe recipe;

  /** The default mode: one node per acquisition. */
  public BatonLibrary() {
    this(MutexOptions.defaults());
  }

  public BatonLibrary(MutexOptions options) {
    this.options = options;
    this.recipe = Recipe.MUTEX;
  }

  /** Another recipe than the mutex, in its default mode. */
  public BatonLibrary(Recipe recipe) {
    this.options = MutexOptions.defaults();
    this.recipe = recipe;
  }

  @Override
  public int holdersAllowed() {
    return recipe.holdersAllowed();
  }

  @Override
  public LockClient connect(String connectString) {
    Baton baton = Baton.builder()
        .connectString(connectString)
        .sessionTimeout(Duration.ofSeconds(30))
        .connectionTimeout(Duration.ofSeconds(15))
        .build();
    return new Client(baton, options, recipe);
  }

  private record Client(Baton baton, MutexOptions options, Recipe recipe) implements LockClient {
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
      // One getChildren (plus a getData per child; the path is idle when this is called).
      baton.mutex(path).holder();
    }

    @Override
    public void close() {
      baton.close();
    }
  }
}
