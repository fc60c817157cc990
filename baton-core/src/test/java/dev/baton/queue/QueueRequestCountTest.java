package dev.baton.queue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.Codec;
import dev.baton.testkit.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the queue costs the server, read from its own packet counter: a put is one create; a take
 * from a listing the consumer already holds is a claim and a read sent together; an
 * acknowledgement is one transaction; and consumers idle on an empty queue are woken by a put
 * once per client. Counts, not time.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QueueRequestCountTest {
  private static TestCluster cluster;

  @BeforeAll
  static void startCluster() {
    cluster = TestCluster.builder().standalone().property("maxSessionTimeout", "30000").start();
  }

  @AfterAll
  static void stopCluster() {
    cluster.close();
  }

  /** A long session keeps pings (one per third of the timeout when idle) out of the count. */
  private static Baton client() {
    return Baton.builder().connectString(cluster.connectString()).sessionTimeout(Duration.ofSeconds(30)).build();
  }

  @Test
  void put_isOneRequest_takeTwo_ackOne() {
    int items = 200;
    try (Baton producerClient = client(); Baton consumerClient = client()) {
      DistributedQueue<String> producer = producerClient.queue("/count/queue", Codec.utf8());
      producer.put("warm-up"); // creates the path
      long before = cluster.packetsReceived(0);
      for (int i = 0; i < items; i++) {
        producer.put("item-" + i);
      }
      long perPut100 = (cluster.packetsReceived(0) - before - cluster.packetReadingCost(0)) * 100 / items;
      assertThat(perPut100).isBetween(99L, 102L);

      DistributedQueue<String> consumer = consumerClient.queue("/count/queue", Codec.utf8());
      consumer.take().ack(); // the first take lists the queue: two requests more
      before = cluster.packetsReceived(0);
      for (int i = 0; i < items; i++) {
        QueueItem<String> item = consumer.take();
        item.ack();
      }
      long perTakeAndAck100 = (cluster.packetsReceived(0) - before - cluster.packetReadingCost(0)) * 100 / items;
      // Claim and read sent together, then the acknowledging transaction.
      assertThat(perTakeAndAck100).isBetween(299L, 302L);
    }
  }

  /**
   * Consumers of several clients idle on an empty queue: a put wakes each client once (not each
   * waiting taker); each lists the queue and tries to claim, and lists once or twice more. Six
   * to eight requests per idle client, however many takers each client has.
   */
  @Test
  void putToAnEmptyQueue_wakesEachIdleClientOnce() throws Exception {
    int clients = 4;
    int takersPerClient = 5;
    List<Baton> consumers = new ArrayList<>();
    try (Baton producerClient = client()) {
      DistributedQueue<String> producer = producerClient.queue("/count/idle", Codec.utf8());
      producer.put("warm-up");
      List<CompletableFuture<QueueItem<String>>> takers = new ArrayList<>();
      for (int c = 0; c < clients; c++) {
        Baton consumer = client();
        consumers.add(consumer);
        DistributedQueue<String> queue = consumer.queue("/count/idle", Codec.utf8());
        for (int t = 0; t < takersPerClient; t++) {
          takers.add(queue.takeAsync());
        }
      }
      CompletableFuture.anyOf(takers.toArray(new CompletableFuture<?>[0])).get(20, TimeUnit.SECONDS);
      QueueItem<String> first = takers.stream().filter(CompletableFuture::isDone).findFirst().orElseThrow().join();
      first.ack();
      // Every waiting client is now idle on the empty queue, its listing current.
      quietCountSince(0);
      long before = cluster.packetsReceived(0);
      // Chosen before the put: a taker may get the item before put() has returned here.
      CompletableFuture<?>[] idle = takers.stream().filter(f -> !f.isDone()).toArray(CompletableFuture<?>[]::new);
      producer.put("wake-up");
      CompletableFuture.anyOf(idle).get(20, TimeUnit.SECONDS);
      long requests = quietCountSince(before);
      System.out.printf("put to an empty queue with %d idle clients (%d takers each): %d requests%n",
          clients, takersPerClient, requests);
      // The put, and per client: a listing, a claim, a listing again (the winner's own claim
      // makes its listing stale too), and one more listing if the claim's watch event came after
      // its first listing; a client that lists after the claim sees the item claimed and stops
      // there. Never per taker: 5 takers each would be 40 listings alone. A ping may fall in the
      // window.
      assertThat(requests).isBetween(1 + 2L * clients, 1 + 8L * clients + 2);
    } finally {
      consumers.forEach(Baton::close);
    }
  }

  /**
   * Waits until the server's packet counter stands still for two readings in a row (nothing in
   * flight), and returns the packets counted since {@code since}, less those of the readings.
   */
  private static long quietCountSince(long since) {
    long cost = cluster.packetReadingCost(0);
    long[] state = {cluster.packetsReceived(0), 0, 1}; // last reading, quiet readings in a row, readings
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200))
        .until(() -> {
          long now = cluster.packetsReceived(0);
          state[2]++;
          state[1] = now - state[0] <= cost ? state[1] + 1 : 0;
          state[0] = now;
          return state[1] >= 2;
        });
    return state[0] - since - state[2] * cost;
  }
}
