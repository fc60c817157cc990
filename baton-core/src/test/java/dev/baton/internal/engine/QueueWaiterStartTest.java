package dev.baton.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.ClusterTestSupport;
import dev.baton.internal.session.Session;
import dev.baton.internal.session.Sessions;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Test;

/**
 * A waiter that leaves before {@link QueueWaiter#start} (a mutex's local waiters all time out or
 * cancel between queueing the shared node and starting it) must send nothing and register
 * nothing: no create, no session observer, no share in the path's listings.
 */
class QueueWaiterStartTest extends ClusterTestSupport {

  @Test
  void cancelledBeforeStart_sendsNoCreate_andLeavesNoObserverNorSharedListing() throws Exception {
    String path = "/engine-start/left-before-start";
    raw.zk().create("/engine-start", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    raw.zk().create(path, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    Baton baton = baton();
    Session session = Sessions.of(baton);
    String serverPath = session.settings().onServer(path);
    int childChangesBefore = raw.zk().exists(path, false).getCversion();
    int observersBefore = session.observerCount();

    QueueWaiter waiter = new QueueWaiter(session, serverPath, QueueRules.LOCK_LAYOUT, QueueRules.EXCLUSIVE,
        new byte[0], true);
    assertThat(waiter.cancel()).isTrue();
    CompletableFuture<QueueWaiter.Acquisition> result =
        waiter.start(-1, () -> new IllegalStateException("waits without limit"));

    assertThat(result).isCompletedExceptionally();
    assertThat(result).isCancelled();
    assertThat(session.observerCount()).as("session observers").isEqualTo(observersBefore);
    assertThat(SharedListings.users(session.handle(), serverPath, QueueRules.LOCK_LAYOUT.kinds()))
        .as("waiters sharing the path's listings").isZero();
    // Read on the waiter's own session: answered after anything it sent before.
    assertThat(session.handle().zk().exists(serverPath, false).getCversion())
        .as("children created or deleted under the lock path").isEqualTo(childChangesBefore);
  }
}
