package dev.baton.bench.lock;

import dev.baton.Baton;

/** Opens clients of one kind: Baton, Curator, Redisson, ShedLock, Spring Integration, or a raw client running a request pattern. */
@FunctionalInterface
public interface LockLibrary {

  /** Connects and waits for the session. */
  LockClient connect(String connectString) throws Exception;

  /** Whether {@link #connect} takes the Redis server's URI rather than ZooKeeper's connect string. */
  default boolean onRedis() {
    return false;
  }

  /** Whether {@link #connect} takes the PostgreSQL server's JDBC URL. */
  default boolean onJdbc() {
    return false;
  }

  /** How many may hold one lock path at once: more is a broken lock. */
  default int holdersAllowed() {
    return 1;
  }
}
