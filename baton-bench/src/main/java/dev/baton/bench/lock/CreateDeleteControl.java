package dev.baton.bench.lock;

import org.apache.zookeeper.ZooKeeper;

/**
 * Not a lock: create, wait; delete, wait. The control of the request count (it must read 2.0 a
 * cycle, or the counting is off). Only ever run by one thread.
 */
public final class CreateDeleteControl implements RawPattern {

  @Override
  public BenchLock.Held acquire(ZooKeeper zk, String path) throws Exception {
    String ours = RawQueue.create(zk, path);
    return () -> RawQueue.delete(zk, path, ours);
  }
}
