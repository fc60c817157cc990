package dev.baton.lock;

import dev.baton.Baton;
import dev.baton.FencingTokens;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;

/**
 * Curator's {@link InterProcessMutex}, with the path of the lock node the calling thread holds
 * made visible, so a Curator critical section can be recorded with the same fencing token a
 * Baton lease would carry (from the czxid of that node).
 */
final class HelperCuratorMutex extends InterProcessMutex {
  private final CuratorFramework client;

  HelperCuratorMutex(CuratorFramework client, String path) {
    super(client, path);
    this.client = client;
  }

  /** The full path of the lock node the calling thread holds; null if it holds none. */
  String ownNodePath() {
    return getLockPath();
  }

  /** The token Baton would give for the node the calling thread holds. */
  long ownFencingToken() throws Exception {
    String node = getLockPath();
    if (node == null) {
      throw new IllegalStateException("the calling thread holds no Curator lock on this mutex");
    }
    return FencingTokens.ofNode(client.checkExists().forPath(node).getCzxid());
  }
}
