package dev.baton.cli.command;

import dev.baton.Baton;
import dev.baton.Coordinator;
import dev.baton.cli.BatonCommand;
import dev.baton.leader.LeaderLatch;
import dev.baton.lock.Mutex;
import dev.baton.lock.ReadWriteLock;
import dev.baton.lock.Semaphore;
import dev.baton.redis.RedisBaton;
import dev.baton.redis.RedisMutexOptions;
import java.time.Duration;
import java.util.function.Supplier;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * A connected store, as {@link StoreOptions} chose it: hands out recipes through {@link
 * Coordinator}, turning a name the backend refuses into a usage error naming {@code <path>} and a
 * recipe the backend does not have into a one-line failure naming both (never a stack trace).
 */
final class Store implements AutoCloseable {
  private final CommandSpec spec;
  private final Coordinator coordinator;
  private final RedisMutexOptions redisLayout;
  private final Duration timeout;

  Store(CommandSpec spec, Coordinator coordinator, RedisMutexOptions redisLayout, Duration timeout) {
    this.spec = spec;
    this.coordinator = coordinator;
    this.redisLayout = redisLayout;
    this.timeout = timeout;
  }

  /** {@code zookeeper}, {@code redis}, {@code postgresql} or {@code mysql}: what the JSON output calls it. */
  String backend() {
    return coordinator.backend();
  }

  Coordinator coordinator() {
    return coordinator;
  }

  /** The ZooKeeper client, if the store is ZooKeeper: what only ZooKeeper can tell (node kinds, the tree). */
  Baton zooKeeper() {
    return coordinator instanceof Baton baton ? baton : null;
  }

  RedisBaton redis() {
    return coordinator instanceof RedisBaton redis ? redis : null;
  }

  boolean isSql() {
    return zooKeeper() == null && redis() == null;
  }

  /** The mutex {@code name}; on Redis in the layout {@code --redis-layout} chose. */
  Mutex mutex(String name) {
    return recipe(name, () -> redis() != null ? redis().mutex(name, redisLayout) : coordinator.mutex(name));
  }

  ReadWriteLock readWriteLock(String name) {
    noLayout("a read-write lock");
    return recipe(name, () -> coordinator.readWriteLock(name));
  }

  Semaphore semaphore(String name, int permits) {
    noLayout("a semaphore");
    return recipe(name, () -> coordinator.semaphore(name, permits));
  }

  LeaderLatch leaderLatch(String name, String participant) {
    noLayout("an election");
    return recipe(name, () -> coordinator.leaderLatch(name, participant));
  }

  /** {@code --redis-layout} chooses a mutex's keys only: given for another recipe, it would silently do nothing. */
  void noLayout(String what) {
    if (spec.commandLine().getParseResult() != null
        && spec.commandLine().getParseResult().hasMatchedOption("--redis-layout")) {
      throw new ParameterException(spec.commandLine(), "--redis-layout chooses the keys of a mutex ('baton lock');"
          + " " + what + " on Redis has one layout only");
    }
  }

  /**
   * On ZooKeeper, refuses a path whose nodes are another recipe's (as {@link RecipeCheck} does);
   * Redis and SQL keep no such kind to check.
   */
  void expect(String name, String what, NodeKind... kinds) {
    if (zooKeeper() != null) {
      RecipeCheck.expect(zooKeeper(), name, timeout, what, kinds);
    }
  }

  /** Makes a recipe, turning the backend's refusals into what a command line says. */
  <T> T recipe(String name, Supplier<T> making) {
    try {
      return making.get();
    } catch (UnsupportedOperationException e) {
      throw new CliException(BatonCommand.describe(e), e);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "<path>: " + e.getMessage());
    }
  }

  /** Closes the client; on every store that waits for the releases of leases closed just before. */
  @Override
  public void close() {
    coordinator.close();
  }
}
