package dev.baton.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.ClusterTestSupport;
import dev.baton.internal.session.Session;
import dev.baton.internal.session.Sessions;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Test;

/**
 * How {@link QueueWaiter#start} meets a waiter's leaving.
 *
 * <p>A waiter that leaves before {@link QueueWaiter#start} (a mutex's local waiters all time out or
 * cancel between queueing the shared node and starting it) must send nothing and register
 * nothing: no create, no session observer, no share in the path's listings.
 */
class QueueWaiterStartTest extends ClusterTestSupport {

  @Test
  void cancelledBeforeStart_sendsNoCreate_andLeavesNoObserverNorSharedListing() throws Exception {
    String path = "/engine-start/left-before-start";
    createParent();
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

  /**
   * The create is sent outside the waiter's monitor (issue 35): while a caller's thread is still
   * sending it, here held inside the ACL provider, ZooKeeper's event thread can take the monitor
   * (a cancel on it returns), and the cancel that raced the start leaves no node: the create's
   * reply finds the waiter gone and deletes what it made.
   */
  @Test
  void cancelOnTheEventThread_whileStartSends_isNotBlocked_andLeavesNoNode() throws Exception {
    String path = "/engine-start/cancel-while-sending";
    createParent();
    raw.zk().create(path, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    CountDownLatch inProvider = new CountDownLatch(1);
    CountDownLatch letGo = new CountDownLatch(1);
    Baton baton = closing(Baton.builder().connectString(cluster.connectString())
        .sessionTimeout(Duration.ofSeconds(10)).connectionTimeout(Duration.ofSeconds(10))
        .aclProvider(serverPath -> {
          if (serverPath.contains("/_c_")) { // the waiter's create: hold the sending thread here
            inProvider.countDown();
            try {
              letGo.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          return ZooDefs.Ids.OPEN_ACL_UNSAFE;
        })
        .build());
    Session session = Sessions.of(baton);
    String serverPath = session.settings().onServer(path);
    int childChangesBefore = raw.zk().exists(path, false).getCversion();
    QueueWaiter waiter = new QueueWaiter(session, serverPath, QueueRules.LOCK_LAYOUT, QueueRules.EXCLUSIVE,
        new byte[0], true);

    try {
      Future<CompletableFuture<QueueWaiter.Acquisition>> started =
          pool(1).submit(() -> waiter.start(-1, () -> new IllegalStateException("waits without limit")));
      assertThat(inProvider.await(15, TimeUnit.SECONDS)).as("the caller's thread is sending the create").isTrue();

      CompletableFuture<Boolean> cancelled = new CompletableFuture<>();
      session.handle().zk().exists(serverPath, false,
          (rc, p, ctx, stat) -> cancelled.complete(waiter.cancel()), null);
      await("the cancel on ZooKeeper's event thread returns").atMost(Duration.ofSeconds(15))
          .until(cancelled::isDone);
      assertThat(cancelled.join()).as("withdrew").isTrue();

      letGo.countDown();
      CompletableFuture<QueueWaiter.Acquisition> result = started.get(15, TimeUnit.SECONDS);
      assertThat(result).isCancelled();
      // The create did go out, after the cancel; its reply deleted the node: two changes, no child.
      await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
        assertThat(raw.zk().exists(path, false).getCversion()).as("child changes").isEqualTo(childChangesBefore + 2);
        assertThat(raw.children(path)).as("children of " + path).isEmpty();
      });
    } finally {
      letGo.countDown();
    }
  }

  private static void createParent() throws Exception {
    if (!raw.exists("/engine-start")) {
      raw.zk().create("/engine-start", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    }
  }
}
