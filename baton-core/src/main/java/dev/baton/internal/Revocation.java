package dev.baton.internal;

import dev.baton.BatonException;
import dev.baton.LockOwner;
import dev.baton.Mutex;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.zookeeper.KeeperException;

/** Cooperative revocation in Curator's form: the asker writes a fixed message to the holder's node. */
public final class Revocation {
  /** What Curator's {@code Revoker} writes to a lock node to ask its holder to let go. */
  static final byte[] MESSAGE = "__REVOKE__".getBytes(StandardCharsets.UTF_8);

  private Revocation() {}

  /** Writes the request to the holder's node; false when nobody holds the lock. */
  public static boolean request(Session session, Mutex mutex) {
    if (mutex instanceof SemaphoreMutex) {
      // Its holder's node lives under leases/, and Curator offers no revocation for it either.
      throw new UnsupportedOperationException(
          "a semaphore mutex (" + mutex.path() + ") cannot be revoked; use a mutex or read-write lock");
    }
    Optional<LockOwner> holder = mutex.holder();
    if (holder.isEmpty()) {
      return false;
    }
    String node = session.settings().onServer(mutex.path()) + "/" + holder.get().node();
    try {
      Retrying.call(session, node, zk -> zk.setData(node, MESSAGE, -1));
      return true;
    } catch (BatonException e) {
      if (e.getCause() instanceof KeeperException.NoNodeException) {
        return false; // released meanwhile
      }
      throw e;
    }
  }
}
