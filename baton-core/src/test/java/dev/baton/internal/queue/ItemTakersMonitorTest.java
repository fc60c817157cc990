package dev.baton.internal.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.ClusterTestSupport;
import dev.baton.internal.session.Session;
import dev.baton.internal.session.Sessions;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Test;

/**
 * The takers decide their requests under their monitor and send them after leaving it (issue
 * 35): a caller's thread that is sending a claim does not keep ZooKeeper's event thread, which
 * takes the monitor for every answer and watch, waiting.
 */
class ItemTakersMonitorTest extends ClusterTestSupport {

  @Test
  void callerSendingAClaim_doesNotBlockTheEventThread() throws Exception {
    String path = "/takers-monitor/q";
    raw.zk().create("/takers-monitor", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    raw.zk().create(path, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    raw.zk().create(path + "/queue-0000000000", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    raw.zk().create(path + "/queue-0000000001", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    AtomicReference<Thread> gated = new AtomicReference<>();
    CountDownLatch inProvider = new CountDownLatch(1);
    CountDownLatch letGo = new CountDownLatch(1);
    Baton baton = closing(Baton.builder().connectString(cluster.connectString())
        .sessionTimeout(Duration.ofSeconds(10)).connectionTimeout(Duration.ofSeconds(10))
        .aclProvider(serverPath -> {
          // The claim's ACL, asked for on the caller's thread: hold that thread while it sends.
          if (serverPath.contains("/claims") && gated.compareAndSet(Thread.currentThread(), null)) {
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
    ItemTakers takers = new ItemTakers(session, session.settings().onServer(path));

    try {
      // The first take lists the queue and claims the oldest item; the other stays a candidate.
      ItemTakers.Taker first = takers.enqueue(-1);
      assertThat(first.result().get(15, TimeUnit.SECONDS).item()).isEqualTo("queue-0000000000");

      // The second take claims that candidate at once, on the caller's thread.
      Future<ItemTakers.Taker> second = pool(1).submit(() -> {
        gated.set(Thread.currentThread());
        return takers.enqueue(-1);
      });
      assertThat(inProvider.await(15, TimeUnit.SECONDS)).as("the caller's thread is sending its claim").isTrue();

      // Meanwhile, on ZooKeeper's event thread: a take that may not wait takes the monitor.
      CompletableFuture<ItemTakers.Taker> third = new CompletableFuture<>();
      session.handle().zk().exists("/", false, (rc, p, ctx, stat) -> third.complete(takers.enqueue(0)), null);
      await("a take on ZooKeeper's event thread returns").atMost(Duration.ofSeconds(15))
          .until(third::isDone);

      letGo.countDown();
      assertThat(second.get(15, TimeUnit.SECONDS).result().get(15, TimeUnit.SECONDS).item())
          .isEqualTo("queue-0000000001");
      // Its requests were sent by the thread that was sending: nothing is left to claim.
      ExecutionException nothing = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
          () -> third.join().result().get(15, TimeUnit.SECONDS));
      assertThat(nothing).hasCauseInstanceOf(TimeoutException.class);
    } finally {
      letGo.countDown();
    }
  }
}
