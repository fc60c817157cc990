package dev.baton.lock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.testkit.TestCluster;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What one uncontended acquire+release costs the server, read from its own packet counter:
 * create, list and delete, three requests (Curator sends the same three, but waits for each;
 * Baton sends the first two together and does not wait for the delete). Counts, not time.
 */
class MutexRequestCountTest {
  private static TestCluster cluster;

  @BeforeAll
  static void startCluster() {
    cluster = TestCluster.builder().standalone().property("maxSessionTimeout", "30000").start();
  }

  @AfterAll
  static void stopCluster() {
    cluster.close();
  }

  @Test
  void uncontendedCycle_sendsThreeRequests() {
    int cycles = 500;
    // A long session keeps pings (one per third of the timeout when idle) out of the count.
    try (Baton baton = Baton.builder().connectString(cluster.connectString())
        .sessionTimeout(Duration.ofSeconds(30)).build()) {
      Mutex mutex = baton.mutex("/count/uncontended");
      mutex.acquire().close(); // creates the container parent once
      // Let the last delete reach the server before reading the counter.
      mutex.acquire().close();
      long before = cluster.packetsReceived(0);
      for (int i = 0; i < cycles; i++) {
        mutex.acquire().close();
      }
      mutex.holder(); // one more request, answered after every delete sent before it
      long perCycle100 = (cluster.packetsReceived(0) - before - 2 - cluster.packetReadingCost(0)) * 100 / cycles;
      // Within a few packets of exactly three a cycle (the server's counter is read over its own
      // connection, and a ping may fall in the window).
      assertThat(perCycle100).isBetween(298L, 302L);
    }
  }

  @Test
  void reentrantAcquire_sendsNothing() {
    try (Baton baton = Baton.builder().connectString(cluster.connectString())
        .sessionTimeout(Duration.ofSeconds(30)).build()) {
      Mutex mutex = baton.mutex("/count/reentrant");
      try (Lease outer = mutex.acquire()) {
        mutex.holder();
        long before = cluster.packetsReceived(0);
        for (int i = 0; i < 100; i++) {
          mutex.acquire().close();
        }
        mutex.holder();
        // holder() itself: list plus one read
        assertThat(cluster.packetsReceived(0) - before - cluster.packetReadingCost(0)).isEqualTo(2);
      }
    }
  }

  /**
   * Regression: a woken waiter used to ask about each node that had been below it, one round
   * trip after another, so a hand-over cost as many requests as the queue was long (up to the
   * window of 16). Each waiter now costs create, list, its delete and either the watches of the
   * (at most three) nodes in its way or one watch and one fresh listing, however many wait.
   */
  @Test
  void handOver_costsTheSameRequestsPerWaiter_asTheQueueGrows() throws Exception {
    double fewWaiters = requestsPerWaiter(4);
    double manyWaiters = requestsPerWaiter(200);
    assertThat(fewWaiters).isLessThanOrEqualTo(5.0);
    assertThat(manyWaiters).isLessThanOrEqualTo(5.05);
  }

  /**
   * No herd, from 2 to 1,000 waiters: requests per hand-over stay at five or fewer, and no
   * release wakes more than three waiters (the server's own count of watches fired per deleted
   * node; the embedded server runs in this JVM, so its metrics can be reset between sizes).
   */
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(ints = {2, 10, 100, 1000})
  void noHerd_requestsAndNotificationsPerRelease_stayBounded(int waiters) throws Exception {
    org.apache.zookeeper.server.ServerMetrics.getMetrics().resetAll();
    double perWaiter = requestsPerWaiter(waiters);
    java.util.Map<String, String> metrics = cluster.metrics(0);
    assertThat(Long.parseLong(metrics.get("zk_cnt_node_deleted_watch_count")))
        .as("deletions that fired watches").isPositive();
    assertThat(Long.parseLong(metrics.get("zk_max_node_deleted_watch_count")))
        .as("watches fired by one deletion").isLessThanOrEqualTo(3);
    assertThat(perWaiter).isLessThanOrEqualTo(5.05);
  }

  private static double requestsPerWaiter(int waiters) throws Exception {
    try (Baton baton = Baton.builder().connectString(cluster.connectString())
        .sessionTimeout(Duration.ofSeconds(30)).build()) {
      Mutex mutex = baton.mutex("/count/queue-" + waiters);
      Lease holder = mutex.acquire();
      java.util.List<java.util.concurrent.CompletableFuture<Void>> passed = new java.util.ArrayList<>();
      long before = cluster.packetsReceived(0);
      for (int i = 0; i < waiters; i++) {
        passed.add(mutex.acquireAsync().thenAccept(Lease::close));
      }
      holder.close();
      java.util.concurrent.CompletableFuture.allOf(passed.toArray(new java.util.concurrent.CompletableFuture<?>[0]))
          .get(60, java.util.concurrent.TimeUnit.SECONDS);
      mutex.holder(); // ordered after every delete: one listing, nothing left to read
      long after = cluster.packetsReceived(0);
      // Less the holder's delete, the final listing and the counter's own reading.
      return (double) (after - before - 2 - cluster.packetReadingCost(0)) / waiters;
    }
  }
}
