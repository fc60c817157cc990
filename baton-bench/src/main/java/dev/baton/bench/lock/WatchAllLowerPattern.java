package dev.baton.bench.lock;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/**
 * Create and list together; then a {@code getData} watch on every node below ours, all sent
 * together. Nodes below can only go (later creates sort higher), so once all of them are gone
 * ours is the lowest: no second listing after a wake-up. The delete is waited for.
 *
 * <p>Without a bound this wakes every waiter behind a release (a herd across sessions); it is
 * here as the limit of "never list again", not as a design to copy.
 */
public final class WatchAllLowerPattern implements RawPattern {

  @Override
  public BenchLock.Held acquire(ZooKeeper zk, String path) throws Exception {
    RawQueue.Created created = RawQueue.createAndList(zk, path);
    List<String> lower = RawQueue.lower(created.node(), created.children());
    if (!lower.isEmpty()) {
      new AllGone(zk, path, lower).await();
    }
    String ours = created.node();
    return () -> RawQueue.delete(zk, path, ours);
  }

  /** Counts down once per lower node, whether its watch fires or it was already gone. */
  private static final class AllGone {
    private final ZooKeeper zk;
    private final String path;
    private final Set<String> pending = ConcurrentHashMap.newKeySet();
    private final CountDownLatch remaining;

    AllGone(ZooKeeper zk, String path, List<String> lower) {
      this.zk = zk;
      this.path = path;
      this.pending.addAll(lower);
      this.remaining = new CountDownLatch(lower.size());
    }

    void await() throws InterruptedException {
      for (String node : List.copyOf(pending)) {
        watch(node);
      }
      remaining.await();
    }

    private void watch(String node) {
      Watcher watcher = event -> onEvent(node, event);
      zk.getData(path + "/" + node, watcher, (rc, p, ctx, data, stat) -> {
        if (rc == KeeperException.Code.NONODE.intValue()) {
          gone(node);
        } else if (rc != KeeperException.Code.OK.intValue()) {
          // Connection trouble: ask again rather than wait for an event that may never come.
          watch(node);
        }
      }, null);
    }

    private void onEvent(String node, WatchedEvent event) {
      if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
        gone(node);
      } else if (event.getType() != Watcher.Event.EventType.None) {
        watch(node); // a one-shot watch fired for a data change: set it again
      }
    }

    private void gone(String node) {
      if (pending.remove(node)) {
        remaining.countDown();
      }
    }
  }
}
