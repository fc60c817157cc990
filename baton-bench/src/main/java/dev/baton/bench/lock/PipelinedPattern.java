package dev.baton.bench.lock;

import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;

/**
 * Create and list sent together, one wait (the session answers in order, so the listing holds the
 * new node); if not lowest, watch the node just below and list again when it goes. The release's
 * delete is either waited for, or sent and left: the session orders the next create behind it,
 * so the next listing cannot see the old node.
 */
public final class PipelinedPattern implements RawPattern {
  private final boolean waitForDelete;
  /** A delete that was not waited for and failed: reported at the next acquire. */
  private final AtomicReference<KeeperException> failedDelete = new AtomicReference<>();

  private PipelinedPattern(boolean waitForDelete) {
    this.waitForDelete = waitForDelete;
  }

  /** One waited round trip to acquire, one to release. */
  public static PipelinedPattern deleteWaited() {
    return new PipelinedPattern(true);
  }

  /** One waited round trip per uncontended cycle. */
  public static PipelinedPattern deleteNotWaited() {
    return new PipelinedPattern(false);
  }

  @Override
  public BenchLock.Held acquire(ZooKeeper zk, String path) throws Exception {
    KeeperException failed = failedDelete.getAndSet(null);
    if (failed != null) {
      throw failed;
    }
    RawQueue.Created created = RawQueue.createAndList(zk, path);
    RawQueue.awaitTurnWithRelist(zk, path, created.node(), created.children());
    String nodePath = path + "/" + created.node();
    if (waitForDelete) {
      return () -> zk.delete(nodePath, -1);
    }
    return () -> zk.delete(nodePath, -1, (rc, p, ctx) -> {
      if (rc != KeeperException.Code.OK.intValue()) {
        failedDelete.compareAndSet(null, KeeperException.create(KeeperException.Code.get(rc), p));
      }
    }, null);
  }
}
