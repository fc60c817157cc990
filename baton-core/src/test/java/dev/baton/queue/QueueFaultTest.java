package dev.baton.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.Codec;
import dev.baton.ConnectionState;
import dev.baton.HelperZk;
import dev.baton.OutcomeUnknownException;
import dev.baton.testkit.FaultProxy;
import dev.baton.testkit.TestCluster;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The queue under the faults it must survive, one client behind a fault-injecting proxy: session
 * expiry while holding an item and while waiting for one, replies lost after a claim, an
 * acknowledgement and a put, and the queue's path removed by the server while a consumer waits.
 * Every test ends with no claim left.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QueueFaultTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  private static TestCluster cluster;
  private static HelperZk raw;

  @BeforeAll
  static void startCluster() throws Exception {
    // Empty containers go within 100 ms instead of a minute, so a drained queue's path vanishes
    // while a consumer waits on it.
    cluster = TestCluster.builder().standalone().emptyContainersCheckedEvery(Duration.ofMillis(100))
        .property("maxSessionTimeout", "30000").start();
    raw = HelperZk.connect(cluster.connectString());
  }

  @AfterAll
  static void stopCluster() {
    if (raw != null) {
      raw.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private static Baton client(String connectString, Duration sessionTimeout) {
    return Baton.builder().connectString(connectString).sessionTimeout(sessionTimeout)
        .connectionTimeout(Duration.ofSeconds(10)).build();
  }

  private static List<String> claims(String path) throws Exception {
    return raw.children(path + "/claims");
  }

  private static List<String> items(String path) throws Exception {
    return raw.children(path).stream().filter(name -> name.startsWith("queue-")).toList();
  }

  /**
   * The holder's link goes silent past its session timeout: the ensemble ends its session and
   * the item goes to the waiting consumer. The first holder's acknowledgement, sent during the
   * partition, must then fail and delete nothing: the item is the other consumer's now.
   */
  @Test
  void expiryWhileHolding_itemGoesToAnother_andTheLateAckDeletesNothing() throws Exception {
    String path = "/fault/queue/expiry-holding";
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0));
        Baton holder = client(proxy.connectString(), Duration.ofSeconds(1));
        Baton other = client(cluster.connectString(), Duration.ofSeconds(10))) {
      other.queue(path, Codec.utf8()).put("job");
      QueueItem<String> first = holder.queue(path, Codec.utf8()).take(WAIT).orElseThrow();
      CompletableFuture<QueueItem<String>> waiting = other.queue(path, Codec.utf8()).takeAsync();
      await().atMost(WAIT).until(() -> claims(path).size() == 1);
      assertThat(waiting).isNotDone();

      proxy.blackhole();
      CompletableFuture<Void> lateAck = CompletableFuture.runAsync(first::ack);
      QueueItem<String> second = waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(second.value()).isEqualTo("job");
      assertThat(second.path()).isEqualTo(first.path());
      await().atMost(WAIT).until(() -> !first.isValid());

      proxy.restore();
      assertThatThrownBy(() -> lateAck.get(WAIT.toSeconds(), TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(ClaimLostException.class)
          .hasMessageContaining(first.path());
      assertThat(items(path)).as("the item is still there for its new claimant").hasSize(1);
      Stat claim = raw.zk().exists(path + "/claims/" + items(path).get(0), false);
      assertThat(claim.getEphemeralOwner()).isEqualTo(other.sessionId());
      assertThatThrownBy(first::ack).isInstanceOf(ClaimLostException.class);
      first.close(); // nothing to give back, and no error

      second.ack();
      assertThat(items(path)).isEmpty();
      assertThat(claims(path)).isEmpty();
    }
  }

  /** A waiting consumer's session expires: it keeps waiting on the client's new session. */
  @Test
  void expiryWhileWaiting_theTakeGoesOnOnTheNewSession() throws Exception {
    String path = "/fault/queue/expiry-waiting";
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0));
        Baton consumer = client(proxy.connectString(), Duration.ofSeconds(1));
        Baton producer = client(cluster.connectString(), Duration.ofSeconds(10))) {
      long oldSession = consumer.sessionId();
      CompletableFuture<QueueItem<String>> waiting = consumer.queue(path, Codec.utf8()).takeAsync();
      await().atMost(WAIT).until(() -> cluster.watchesBySession(0).containsKey(oldSession));

      proxy.blackhole();
      await().atMost(WAIT).until(() -> !cluster.watchesBySession(0).containsKey(oldSession)); // session ended
      proxy.restore();
      await().atMost(WAIT).until(() -> consumer.sessionId() != oldSession
          && cluster.watchesBySession(0).containsKey(consumer.sessionId()));
      assertThat(waiting).isNotDone();

      producer.queue(path, Codec.utf8()).put("after expiry");
      QueueItem<String> item = waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(item.value()).isEqualTo("after expiry");
      Stat claim = raw.zk().exists(path + "/claims/" + items(path).get(0), false);
      assertThat(claim.getEphemeralOwner()).isEqualTo(consumer.sessionId());
      item.ack();
      assertThat(claims(path)).isEmpty();
    }
  }

  /**
   * The claim reaches the server but its reply is lost with the connection: the consumer must
   * find its claim by the data it wrote and deliver the item, not leave the claim behind (which
   * would hide the item from everyone while this session lives).
   */
  @Test
  void claimReplyLost_findsItsClaim_insteadOfLeavingItBehind() throws Exception {
    String path = "/fault/queue/claim-reply-lost";
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0));
        Baton consumer = client(proxy.connectString(), Duration.ofSeconds(20));
        Baton producer = client(cluster.connectString(), Duration.ofSeconds(10))) {
      producer.queue(path, Codec.utf8()).put("job");
      proxy.delay(Duration.ofSeconds(1));
      CompletableFuture<QueueItem<String>> taking = consumer.queue(path, Codec.utf8()).takeAsync();
      await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> claims(path).size() == 1);
      proxy.cut(); // the reply is still in the proxy's delay line: it is dropped
      assertThat(taking).isNotDone();
      proxy.restore();

      QueueItem<String> item = taking.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(item.value()).isEqualTo("job");
      assertThat(claims(path)).hasSize(1);
      item.ack();
      assertThat(claims(path)).isEmpty();
      assertThat(items(path)).isEmpty();
    }
  }

  /**
   * The acknowledgement is applied but its reply is lost: sent again on the same session, it
   * finds the claim gone, which only its own first attempt can have done, and reports success.
   */
  @Test
  void ackReplyLost_isAppliedOnce_andReportedDone() throws Exception {
    String path = "/fault/queue/ack-reply-lost";
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0));
        Baton consumer = client(proxy.connectString(), Duration.ofSeconds(20));
        Baton producer = client(cluster.connectString(), Duration.ofSeconds(10))) {
      DistributedQueue<String> queue = producer.queue(path, Codec.utf8());
      queue.put("first");
      queue.put("second");
      QueueItem<String> item = consumer.queue(path, Codec.utf8()).take(WAIT).orElseThrow();
      proxy.delay(Duration.ofSeconds(1));
      CompletableFuture<Void> acking = CompletableFuture.runAsync(item::ack);
      await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> items(path).size() == 1);
      proxy.cut();
      proxy.restore();

      acking.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(queue.size()).isEqualTo(1);
      assertThat(queue.peek()).contains("second");
      assertThat(claims(path)).isEmpty();
    }
  }

  /**
   * Regression (found by the chaos run): the acknowledgement is applied, its reply is lost, and the
   * session expires before it can be sent again. The item is gone, but whether this call removed
   * it or another consumer did (one that took it once the claim went with the session) cannot be
   * told: it used to report success, so two consumers could both be told their acknowledgement
   * landed. It now says the outcome is unknown.
   */
  @Test
  void ackReplyLost_thenSessionExpired_reportsOutcomeUnknown_notDone() throws Exception {
    String path = "/fault/queue/ack-reply-lost-expired";
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0));
        Baton consumer = client(proxy.connectString(), Duration.ofSeconds(1));
        Baton producer = client(cluster.connectString(), Duration.ofSeconds(10))) {
      DistributedQueue<String> queue = producer.queue(path, Codec.utf8());
      queue.put("only");
      QueueItem<String> item = consumer.queue(path, Codec.utf8()).take(WAIT).orElseThrow();
      long session = consumer.sessionId();
      proxy.delay(Duration.ofMillis(400));
      CompletableFuture<Void> acking = CompletableFuture.runAsync(item::ack);
      await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> items(path).isEmpty());
      proxy.blackhole();
      await().atMost(WAIT).until(() -> consumer.connectionState() == ConnectionState.LOST);
      proxy.restore();
      await().atMost(WAIT).until(() -> consumer.sessionId() != session && consumer.sessionId() != 0);

      assertThatThrownBy(() -> acking.get(WAIT.toSeconds(), TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class).cause()
          .isInstanceOf(OutcomeUnknownException.class).hasMessageContaining(path);
      assertThat(queue.size()).isZero();
    }
  }

  /**
   * A put whose reply is lost may or may not have made its item: it says so, and does not send
   * the create again (which could put the item twice).
   */
  @Test
  void putReplyLost_reportsOutcomeUnknown_andPutsAtMostOnce() throws Exception {
    String path = "/fault/queue/put-reply-lost";
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0));
        Baton producer = client(proxy.connectString(), Duration.ofSeconds(20))) {
      DistributedQueue<String> queue = producer.queue(path, Codec.utf8());
      queue.put("before");
      proxy.delay(Duration.ofSeconds(1));
      CompletableFuture<Void> putting = CompletableFuture.runAsync(() -> queue.put("lost reply"));
      await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> items(path).size() == 2);
      proxy.cut();
      proxy.restore();

      assertThatThrownBy(() -> putting.get(WAIT.toSeconds(), TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(OutcomeUnknownException.class)
          .hasMessageContaining(path);
      assertThat(items(path)).hasSize(2);
      queue.put("after");
      assertThat(queue.size()).isEqualTo(3);
    }
  }

  /**
   * The ensemble removes the drained queue's path (an empty container) while a consumer waits
   * on it: the consumer must wait for the path to come back, get the next item, and leave no
   * watch on the server once done.
   */
  @Test
  void pathRemovedWhileWaiting_consumerGetsTheNextItem_andLeavesNoWatch() throws Exception {
    String path = "/fault/queue/container";
    try (Baton consumer = client(cluster.connectString(), Duration.ofSeconds(10));
        Baton producer = client(cluster.connectString(), Duration.ofSeconds(10))) {
      DistributedQueue<String> queue = consumer.queue(path, Codec.utf8());
      producer.queue(path, Codec.utf8()).put("first");
      queue.take(WAIT).orElseThrow().ack();
      CompletableFuture<QueueItem<String>> waiting = queue.takeAsync();
      await().atMost(WAIT).until(() -> !raw.exists(path));
      await().atMost(WAIT).until(() -> cluster.watchesBySession(0).containsKey(consumer.sessionId()));
      assertThat(waiting).isNotDone();

      producer.queue(path, Codec.utf8()).put("second");
      QueueItem<String> item = waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(item.value()).isEqualTo("second");
      item.ack();
      await().atMost(WAIT).until(() -> !raw.exists(path));
      assertThat(queue.take(Duration.ofMillis(200))).isEmpty();
      await().atMost(WAIT).untilAsserted(() ->
          assertThat(cluster.watchesBySession(0).get(consumer.sessionId())).as("watches left").isNull());
    }
  }
}
