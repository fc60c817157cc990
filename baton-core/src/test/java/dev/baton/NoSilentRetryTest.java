package dev.baton;

import static dev.baton.DigestUsers.ALICE_ALL_OTHERS_READ;
import static dev.baton.DigestUsers.digestId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.leader.LeaderLatch;
import dev.baton.leader.LeaderSelector;
import dev.baton.queue.DistributedQueue;
import dev.baton.queue.QueueConsumer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Long-running recipes stop on errors that retrying cannot cure and say so: the failure is kept
 * ({@code failure()}) and told to failure listeners, where they used to retry forever with a
 * warning in the log. The recipes run as bob, on paths whose ACL gives bob less than it needs.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NoSilentRetryTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private Baton bob() {
    return closing(Baton.builder().connectString(cluster.connectString()).sessionTimeout(WAIT)
        .connectionTimeout(WAIT).digestAuth("bob", "pw-bob").build());
  }

  private Baton alice() {
    return closing(Baton.builder().connectString(cluster.connectString()).sessionTimeout(WAIT)
        .connectionTimeout(WAIT).digestAuth("alice", "pw-alice").build());
  }

  /** A persistent node (and open parents) that alice may do anything to, and others only read. */
  private static void aliceOwns(String path, List<ACL> acl) throws Exception {
    String parent = path.substring(0, path.lastIndexOf('/'));
    if (!parent.isEmpty() && !raw.exists(parent)) {
      raw.zk().create(parent, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    }
    raw.zk().create(path, new byte[0], acl, CreateMode.PERSISTENT);
  }

  private static CompletableFuture<RuntimeException> heard(java.util.function.Consumer<FailureListener> add) {
    CompletableFuture<RuntimeException> told = new CompletableFuture<>();
    add.accept(told::complete);
    return told;
  }

  @Test
  void leaderLatch_pathRefusesThisIdentity_stopsAndReportsNotAuthorized() throws Exception {
    aliceOwns("/fatal/latch", ALICE_ALL_OTHERS_READ);
    LeaderLatch latch = closing(bob().leaderLatch("/fatal/latch", "bob-1"));
    CompletableFuture<RuntimeException> told = heard(latch::addFailureListener);
    latch.start();

    assertThat(told.get(20, TimeUnit.SECONDS)).isInstanceOf(NotAuthorizedException.class)
        .hasMessageContaining("/fatal/latch");
    assertThat(latch.failure()).containsSame(told.get());
    assertThatThrownBy(() -> latch.await(WAIT))
        .isInstanceOf(IllegalStateException.class).hasCauseInstanceOf(NotAuthorizedException.class);
    assertThat(latch.hasLeadership()).isFalse();
    assertThat(raw.children("/fatal/latch")).isEmpty();
    // A listener added afterwards still hears of it.
    assertThat(heard(latch::addFailureListener).get(20, TimeUnit.SECONDS)).isSameAs(told.get());
  }

  @Test
  void treeCache_ofAPathThisIdentityMayNotRead_stopsAndAwaitInitializedThrowsNotAuthorized() throws Exception {
    aliceOwns("/fatal/cached", new java.util.ArrayList<>(List.of(new ACL(ZooDefs.Perms.ALL, digestId("alice")))));
    dev.baton.cache.TreeCache cache = closing(bob().cache("/fatal/cached"));

    assertThatThrownBy(() -> cache.start().awaitInitialized(WAIT))
        .isInstanceOf(NotAuthorizedException.class).hasMessageContaining("/fatal/cached");
    assertThat(cache.failure()).containsInstanceOf(NotAuthorizedException.class);
    assertThat(cache.isSynced()).isFalse();
  }

  @Test
  void leaderLatch_clientClosedWhileQueued_reportsClientClosed() throws Exception {
    LeaderLatch leader = closing(alice().leaderLatch("/fatal/closed-latch", "alice"));
    leader.start();
    assertThat(leader.await(WAIT)).isTrue();
    Baton bob = bob();
    LeaderLatch latch = bob.leaderLatch("/fatal/closed-latch", "bob");
    CompletableFuture<RuntimeException> told = heard(latch::addFailureListener);
    latch.start();
    awaitChildren("/fatal/closed-latch", 2);

    bob.close();

    assertThat(told.get(20, TimeUnit.SECONDS)).isInstanceOf(ClientClosedException.class);
    assertThat(latch.failure()).containsSame(told.get());
  }

  @Test
  void leaderSelector_pathRefusesThisIdentity_stopsReportsAndRefusesRequeue() throws Exception {
    aliceOwns("/fatal/selector", ALICE_ALL_OTHERS_READ);
    AtomicInteger led = new AtomicInteger();
    LeaderSelector selector = closing(bob().leaderSelector("/fatal/selector", "bob-1",
        leadership -> led.incrementAndGet()));
    CompletableFuture<RuntimeException> told = heard(selector::addFailureListener);
    selector.start();

    assertThat(told.get(20, TimeUnit.SECONDS)).isInstanceOf(NotAuthorizedException.class)
        .hasMessageContaining("/fatal/selector");
    assertThat(selector.failure()).containsSame(told.get());
    assertThatThrownBy(selector::requeue)
        .isInstanceOf(IllegalStateException.class).hasCauseInstanceOf(NotAuthorizedException.class);
    assertThat(led).hasValue(0);
  }

  @Test
  void queueConsumer_claimRefused_stopsAndReportsNotAuthorized() throws Exception {
    aliceOwns("/fatal/queue", ALICE_ALL_OTHERS_READ);
    alice().queue("/fatal/queue", Codec.utf8()).put("order-1");
    AtomicInteger handled = new AtomicInteger();
    QueueConsumer consumer = closing(bob().queue("/fatal/queue", Codec.utf8())
        .consume(item -> handled.incrementAndGet()));
    CompletableFuture<RuntimeException> told = heard(consumer::addFailureListener);

    assertThat(told.get(20, TimeUnit.SECONDS)).isInstanceOf(NotAuthorizedException.class)
        .hasMessageContaining("/fatal/queue");
    assertThat(consumer.failure()).containsSame(told.get());
    assertThat(consumer.isRunning()).isFalse();
    assertThat(handled).hasValue(0);
  }

  /**
   * Bob may claim (create) but not remove (delete) items: each acknowledgement is refused. The
   * consumer used to give the item back, take it again and handle it again, forever.
   */
  @Test
  void queueConsumer_ackRefused_stopsAfterOneTry_insteadOfHandlingTheItemForever() throws Exception {
    aliceOwns("/fatal/ack-queue", new java.util.ArrayList<>(List.of(new ACL(ZooDefs.Perms.ALL, digestId("alice")),
        new ACL(ZooDefs.Perms.READ | ZooDefs.Perms.CREATE, digestId("bob")))));
    alice().queue("/fatal/ack-queue", Codec.utf8()).put("order-1");
    AtomicInteger handled = new AtomicInteger();
    DistributedQueue<String> queue = bob().queue("/fatal/ack-queue", Codec.utf8());
    QueueConsumer consumer = closing(queue.consume(item -> handled.incrementAndGet()));
    CompletableFuture<RuntimeException> told = heard(consumer::addFailureListener);

    assertThat(told.get(20, TimeUnit.SECONDS)).isInstanceOf(NotAuthorizedException.class);
    assertThat(consumer.isRunning()).isFalse();
    assertThat(handled).hasValue(1);
    // The item is still there for a consumer that may remove it, and is not held by bob.
    await().atMost(WAIT).untilAsserted(() -> assertThat(queue.size()).isEqualTo(1));
    try (var item = alice().queue("/fatal/ack-queue", Codec.utf8()).take(WAIT).orElseThrow()) {
      assertThat(item.value()).isEqualTo("order-1");
      item.ack();
    }
  }

  @Test
  void queueConsumer_deadLetterPathRefused_stopsReportsAndLeavesTheItemInTheQueue() throws Exception {
    aliceOwns("/fatal/letters", ALICE_ALL_OTHERS_READ);
    DistributedQueue<String> queue = bob().queue("/fatal/poisoned", Codec.utf8());
    queue.put("poison");
    QueueConsumer consumer = closing(queue.consume(item -> {
      throw new IllegalStateException("cannot ship " + item);
    }, dev.baton.queue.ConsumerOptions.defaults().withMaxAttempts(1).withDeadLetterPath("/fatal/letters")));
    CompletableFuture<RuntimeException> told = heard(consumer::addFailureListener);

    assertThat(told.get(20, TimeUnit.SECONDS)).isInstanceOf(NotAuthorizedException.class)
        .hasMessageContaining("/fatal/letters");
    assertThat(consumer.isRunning()).isFalse();
    assertThat(queue.size()).isEqualTo(1);
    assertThat(raw.children("/fatal/letters")).isEmpty();
  }
}
