package dev.baton.internal.lock;

import dev.baton.BatonException;
import dev.baton.internal.engine.HeldLock;
import dev.baton.internal.session.Retrying;
import dev.baton.internal.session.Session;
import dev.baton.lock.LockOwner;
import dev.baton.lock.Mutex;
import java.util.Optional;
import org.apache.zookeeper.KeeperException;

/** Cooperative revocation in Curator's form: the asker writes a fixed message to the holder's node. */
public final class Revocation {
  private Revocation() {}

  /** Writes the request to the holder's node; false when nobody holds the lock. */
  public static boolean request(Session session, Mutex mutex) {
    if (!(mutex instanceof QueueMutex)) {
      // Only a mutex or a read-write lock's half has its holder's node right under its path; a
      // semaphore mutex's lives under leases/, and Curator offers no revocation for it either.
      throw new UnsupportedOperationException(
          mutex + " cannot be revoked: only a mutex or a read-write lock can");
    }
    Optional<LockOwner> holder = mutex.holder();
    if (holder.isEmpty()) {
      return false;
    }
    String node = session.settings().onServer(mutex.path()) + "/" + holder.get().node();
    try {
      Retrying.call(session, node, zk -> zk.setData(node, HeldLock.REVOCATION_REQUEST, -1));
      return true;
    } catch (BatonException e) {
      if (e.getCause() instanceof KeeperException.NoNodeException) {
        return false; // released meanwhile
      }
      throw e;
    }
  }
}
