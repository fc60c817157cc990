package dev.baton.bench.lock;

import org.apache.zookeeper.ZooKeeper;

/**
 * Curator's request pattern on the raw client: create, wait; list, wait; (watch the node below and
 * list again until lowest); delete, wait. Three waited round trips per uncontended cycle.
 */
public final class SequentialPattern implements RawPattern {

  @Override
  public BenchLock.Held acquire(ZooKeeper zk, String path) throws Exception {
    String ours = RawQueue.create(zk, path);
    RawQueue.awaitTurnWithRelist(zk, path, ours, zk.getChildren(path, false));
    return () -> RawQueue.delete(zk, path, ours);
  }
}
