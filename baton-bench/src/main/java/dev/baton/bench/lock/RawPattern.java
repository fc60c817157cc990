package dev.baton.bench.lock;

import org.apache.zookeeper.ZooKeeper;

/**
 * A request pattern a lock library could use, run on the raw ZooKeeper client with no library
 * code around it: the limit of the pattern, the "floor" a library using it could reach.
 */
@FunctionalInterface
public interface RawPattern {

  /** Takes the lock on {@code path} (which exists) with {@code zk}; blocks until held. */
  BenchLock.Held acquire(ZooKeeper zk, String path) throws Exception;
}
