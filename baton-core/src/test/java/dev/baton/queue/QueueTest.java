package dev.baton.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.BatonException;
import dev.baton.BatonInterruptedException;
import dev.baton.ClientClosedException;
import dev.baton.ClusterTestSupport;
import dev.baton.Codec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The FIFO queue against a real server: order, exactly-once delivery across clients when
 * consumers acknowledge, items given back by a consumer or by its death, timeouts and
 * cancellation that leave nothing behind, the size limit, and bad input.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QueueTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(20);

  private static List<String> items(String path) throws Exception {
    return raw.children(path).stream().filter(name -> name.startsWith("queue-")).toList();
  }

  private static List<String> claims(String path) throws Exception {
    return raw.children(path + "/claims");
  }

  @Test
  void singleConsumer_takesItemsInPutOrder_andAckRemovesThem() throws Exception {
    String path = "/queue/order";
    DistributedQueue<String> producer = baton().queue(path, Codec.utf8());
    List<String> put = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      put.add("item-" + i);
      producer.put("item-" + i);
    }
    assertThat(producer.size()).isEqualTo(40);

    DistributedQueue<String> consumer = baton().queue(path, Codec.utf8());
    List<String> taken = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      try (QueueItem<String> item = consumer.take()) {
        taken.add(item.value());
        assertThat(item.path()).startsWith(path + "/queue-");
        item.ack();
      }
    }
    assertThat(taken).containsExactlyElementsOf(put);
    assertThat(items(path)).isEmpty();
    assertThat(claims(path)).isEmpty();
    assertThat(producer.size()).isZero();
  }

  /**
   * Three producer clients and three consumer clients (blocking takes, asynchronous takes and a
   * callback consumer): every item is delivered once, and each consumer sees the items of each
   * producer in the order they were put. Each consumer, on its first item, waits until every
   * consumer has one, so all of them surely take part.
   */
  @Test
  void producersAndConsumersAcrossClients_everyItemOnce_perProducerOrderKept() throws Exception {
    String path = "/queue/many";
    int producers = 3;
    int perProducer = 60;
    int total = producers * perProducer;
    Map<String, List<String>> seenByConsumer = new ConcurrentHashMap<>();
    List<String> delivered = Collections.synchronizedList(new ArrayList<>());
    CountDownLatch allDelivered = new CountDownLatch(total);
    CountDownLatch everyConsumerHasOne = new CountDownLatch(4);
    AtomicBoolean done = new AtomicBoolean();
    ExecutorService threads = pool(8);

    // Blocking consumers: two threads on one client.
    DistributedQueue<String> blocking = baton().queue(path, Codec.utf8());
    List<Future<?>> loops = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      String name = "blocking-" + t;
      loops.add(threads.submit(() -> {
        while (!done.get()) {
          Optional<QueueItem<String>> item = blocking.take(Duration.ofMillis(200));
          if (item.isPresent()) {
            record(name, item.get().value(), seenByConsumer, delivered, everyConsumerHasOne);
            item.get().ack();
            allDelivered.countDown();
          }
        }
        return null;
      }));
    }
    // A callback consumer on a second client.
    QueueConsumer callback = baton().queue(path, Codec.utf8()).consume(value -> {
      record("callback", value, seenByConsumer, delivered, everyConsumerHasOne);
      allDelivered.countDown();
    });
    // An asynchronous consumer on a third client: one take in flight at a time.
    DistributedQueue<String> async = baton().queue(path, Codec.utf8());
    Runnable[] nextAsync = new Runnable[1];
    nextAsync[0] = () -> {
      if (done.get()) {
        return;
      }
      async.takeAsync().thenAcceptAsync(item -> {
        record("async", item.value(), seenByConsumer, delivered, everyConsumerHasOne);
        item.ack();
        allDelivered.countDown();
        nextAsync[0].run();
      }, threads);
    };
    nextAsync[0].run();

    List<Future<?>> puts = new ArrayList<>();
    for (int p = 0; p < producers; p++) {
      DistributedQueue<String> producer = baton().queue(path, Codec.utf8());
      String name = "p" + p;
      puts.add(threads.submit(() -> {
        for (int i = 0; i < perProducer; i++) {
          producer.put(name + ":" + i);
        }
        return null;
      }));
    }
    for (Future<?> put : puts) {
      put.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }
    assertThat(allDelivered.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("all delivered").isTrue();
    done.set(true);
    callback.close();
    for (Future<?> loop : loops) {
      loop.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    assertThat(delivered).hasSize(total).doesNotHaveDuplicates();
    for (Map.Entry<String, List<String>> consumer : seenByConsumer.entrySet()) {
      Map<String, Integer> last = new HashMap<>();
      for (String value : consumer.getValue()) {
        String producer = value.substring(0, value.indexOf(':'));
        int index = Integer.parseInt(value.substring(value.indexOf(':') + 1));
        assertThat(index).as(consumer.getKey() + " saw " + producer + " out of order")
            .isGreaterThan(last.getOrDefault(producer, -1));
        last.put(producer, index);
      }
    }
    assertThat(seenByConsumer.keySet()).as("every consumer took part").hasSize(4);
    assertThat(everyConsumerHasOne.getCount()).isZero();
    assertThat(items(path)).isEmpty();
    assertThat(claims(path)).isEmpty();
  }

  private static void record(String consumer, String value, Map<String, List<String>> seen,
      List<String> delivered, CountDownLatch everyConsumerHasOne) {
    boolean first = !seen.containsKey(consumer);
    seen.computeIfAbsent(consumer, k -> new CopyOnWriteArrayList<>()).add(value);
    delivered.add(value);
    if (first) {
      everyConsumerHasOne.countDown();
      try {
        everyConsumerHasOne.await(WAIT.toSeconds(), TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Test
  void consumerClosedWithoutAck_itemGoesToAnotherConsumer() throws Exception {
    String path = "/queue/closed-consumer";
    baton().queue(path, Codec.utf8()).put("job");
    Baton dying = baton();
    QueueItem<String> held = dying.queue(path, Codec.utf8()).take(WAIT).orElseThrow();
    assertThat(held.value()).isEqualTo("job");

    CompletableFuture<QueueItem<String>> waiting = baton().queue(path, Codec.utf8()).takeAsync();
    await().atMost(WAIT).until(() -> claims(path).size() == 1);
    assertThat(waiting).isNotDone(); // claimed by the other consumer: not delivered twice

    dying.close(); // no ack: the claim goes with the session
    QueueItem<String> again = waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(again.value()).isEqualTo("job");
    assertThat(again.path()).isEqualTo(held.path());
    again.ack();
    assertThat(items(path)).isEmpty();
    assertThat(claims(path)).isEmpty();
  }

  @Test
  void consumersClosedHoldingItems_leaveNoClaim_andLoseNoItem() throws Exception {
    String path = "/queue/close-all";
    DistributedQueue<String> producer = baton().queue(path, Codec.utf8());
    for (int i = 0; i < 3; i++) {
      producer.put("job-" + i);
    }
    List<Baton> consumers = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Baton consumer = baton();
      consumers.add(consumer);
      consumer.queue(path, Codec.utf8()).take(WAIT).orElseThrow();
    }
    assertThat(claims(path)).hasSize(3);
    consumers.forEach(Baton::close);
    assertThat(claims(path)).isEmpty();
    assertThat(items(path)).hasSize(3);
    List<String> left = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      QueueItem<String> item = producer.take(WAIT).orElseThrow();
      left.add(item.value());
      item.ack();
    }
    assertThat(left).containsExactly("job-0", "job-1", "job-2");
  }

  @Test
  void release_givesTheItemBack_atItsPlaceInTheQueue() throws Exception {
    String path = "/queue/release";
    DistributedQueue<String> queue = baton().queue(path, Codec.utf8());
    queue.put("first");
    queue.put("second");
    DistributedQueue<String> other = baton().queue(path, Codec.utf8());

    QueueItem<String> first = queue.take(WAIT).orElseThrow();
    QueueItem<String> second = other.take(WAIT).orElseThrow();
    assertThat(first.value()).isEqualTo("first");
    assertThat(second.value()).as("the claimed item is skipped").isEqualTo("second");
    CompletableFuture<QueueItem<String>> waiting = other.takeAsync();
    await().atMost(WAIT).until(() -> claims(path).size() == 2);
    assertThat(waiting).isNotDone();

    first.release();
    QueueItem<String> again = waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(again.value()).isEqualTo("first");
    assertThat(first.isValid()).isFalse();
    assertThatThrownBy(first::ack).isInstanceOf(IllegalStateException.class).hasMessageContaining(first.path());
    again.ack();
    second.ack();
    assertThat(items(path)).isEmpty();
    assertThat(claims(path)).isEmpty();
  }

  @Test
  void ackTwice_doesNothing_andReleaseAfterAckIsRefused() throws Exception {
    String path = "/queue/ack-twice";
    DistributedQueue<String> queue = baton().queue(path, Codec.utf8());
    queue.put("a");
    queue.put("b");
    QueueItem<String> a = queue.take();
    assertThat(a.isValid()).isTrue();
    a.ack();
    a.ack();
    assertThat(a.isValid()).isFalse();
    assertThatThrownBy(a::release).isInstanceOf(IllegalStateException.class).hasMessageContaining("acknowledged");
    a.close(); // never throws
    assertThat(queue.size()).isEqualTo(1);
    assertThat(queue.take().value()).isEqualTo("b");
  }

  @Test
  void timedTake_onEmptyQueue_timesOutLeavingNoNodeAndNoWatch() throws Exception {
    String path = "/queue/empty/never-used";
    Baton consumer = baton();
    DistributedQueue<String> queue = consumer.queue(path, Codec.utf8());
    assertThat(queue.take(Duration.ofMillis(300))).isEmpty();
    assertThat(queue.take(Duration.ZERO)).isEmpty();
    assertThat(queue.peek()).isEmpty();
    assertThat(queue.size()).isZero();

    assertThat(raw.exists("/queue/empty")).as("takers create nothing").isFalse();
    await().atMost(WAIT).untilAsserted(() -> assertThat(cluster.watchesBySession(0).get(consumer.sessionId()))
        .as("watches left by the timed-out taker").isNull());
    // The same object still works once an item comes.
    baton().queue(path, Codec.utf8()).put("late");
    assertThat(queue.take(WAIT).orElseThrow().value()).isEqualTo("late");
  }

  @Test
  void timedTake_whileEveryItemIsClaimed_timesOutWithoutClaiming() throws Exception {
    String path = "/queue/all-claimed";
    DistributedQueue<String> queue = baton().queue(path, Codec.utf8());
    queue.put("only");
    QueueItem<String> held = queue.take();
    DistributedQueue<String> other = baton().queue(path, Codec.utf8());
    assertThat(other.take(Duration.ofMillis(300))).isEmpty();
    assertThat(other.take(Duration.ZERO)).isEmpty();
    assertThat(claims(path)).hasSize(1);
    assertThat(other.peek()).as("peek skips claimed items").isEmpty();
    assertThat(other.size()).as("size counts claimed items").isEqualTo(1);
    held.ack();
    assertThat(claims(path)).isEmpty();
  }

  @Test
  void takeAsync_cancelled_withdraws_andTheNextItemGoesToTheNextTaker() throws Exception {
    String path = "/queue/cancel";
    DistributedQueue<String> queue = baton().queue(path, Codec.utf8());
    CompletableFuture<QueueItem<String>> cancelled = queue.takeAsync();
    CompletableFuture<QueueItem<String>> timedOut = queue.takeAsync().orTimeout(100, TimeUnit.MILLISECONDS);
    CompletableFuture<QueueItem<String>> waiting = queue.takeAsync();
    assertThat(cancelled.cancel(false)).isTrue();
    assertThatThrownBy(() -> timedOut.get(WAIT.toSeconds(), TimeUnit.SECONDS))
        .hasCauseInstanceOf(TimeoutException.class);

    baton().queue(path, Codec.utf8()).put("x");
    QueueItem<String> item = waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(item.value()).isEqualTo("x");
    assertThat(cancelled).isCancelled();
    assertThat(claims(path)).hasSize(1);
    item.ack();
    assertThat(claims(path)).isEmpty();
    assertThat(items(path)).isEmpty();
  }

  @Test
  void blockingTake_interrupted_throwsAndClaimsNothing() throws Exception {
    String path = "/queue/interrupt";
    DistributedQueue<String> queue = baton().queue(path, Codec.utf8());
    CompletableFuture<Throwable> failure = new CompletableFuture<>();
    Thread taker = new Thread(() -> {
      try {
        queue.take();
        failure.complete(null);
      } catch (RuntimeException e) {
        failure.complete(e);
      }
    });
    taker.start();
    await().atMost(WAIT).until(() -> taker.getState() == Thread.State.WAITING);
    taker.interrupt();
    assertThat(failure.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(BatonInterruptedException.class);

    DistributedQueue<String> other = baton().queue(path, Codec.utf8());
    other.put("x");
    assertThat(other.take(WAIT).orElseThrow().value()).as("not swallowed by the interrupted taker").isEqualTo("x");
  }

  @Test
  void consume_acksOnReturn_givesBackOnException_andStopsWhenClosed() throws Exception {
    String path = "/queue/consume";
    DistributedQueue<String> queue = baton().queue(path, Codec.utf8());
    queue.put("a");
    queue.put("flaky");
    queue.put("c");
    List<String> handled = new CopyOnWriteArrayList<>();
    AtomicInteger flakyAttempts = new AtomicInteger();
    QueueConsumer consumer = baton().queue(path, Codec.utf8()).consume(value -> {
      if (value.equals("flaky") && flakyAttempts.incrementAndGet() == 1) {
        throw new IllegalStateException("first attempt fails (expected by the test)");
      }
      handled.add(value);
    });
    await().atMost(WAIT).until(() -> handled.size() == 3);
    // Alone on the queue, the consumer leaves the failed item alone through its back-off while it
    // goes on, and takes it afterwards: it comes after "c".
    assertThat(handled).containsExactly("a", "c", "flaky");
    assertThat(flakyAttempts).hasValue(2);
    assertThat(consumer.isRunning()).isTrue();
    consumer.close();
    assertThat(consumer.isRunning()).isFalse();

    queue.put("after-close");
    assertThat(queue.take(WAIT).orElseThrow().value()).as("a closed consumer takes nothing").isEqualTo("after-close");
    assertThat(handled).hasSize(3);
  }

  @Test
  void consume_closeWaitsForTheItemInHand_thenAcknowledgesIt() throws Exception {
    String path = "/queue/consume-close";
    DistributedQueue<String> queue = baton().queue(path, Codec.utf8());
    queue.put("slow");
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    QueueConsumer consumer = baton().queue(path, Codec.utf8()).consume(value -> {
      started.countDown();
      finish.await();
    });
    assertThat(started.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    CompletableFuture<Void> closing = CompletableFuture.runAsync(consumer::close);
    await().atMost(WAIT).until(() -> !consumer.isRunning());
    assertThat(closing).as("close waits for the handler").isNotDone();
    assertThat(queue.size()).as("not acknowledged while handled").isEqualTo(1);
    finish.countDown();
    closing.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(queue.size()).isZero();
  }

  @Test
  void peek_showsTheOldestUnclaimedItem_withoutClaimingIt() throws Exception {
    String path = "/queue/peek";
    DistributedQueue<String> queue = baton().queue(path, Codec.utf8());
    queue.put("one");
    queue.put("two");
    assertThat(queue.peek()).contains("one");
    assertThat(claims(path)).isEmpty();
    QueueItem<String> one = queue.take();
    assertThat(queue.peek()).contains("two");
    one.ack();
    assertThat(queue.peek()).contains("two");
  }

  @Test
  void jsonAndBytesCodecs_roundTrip() throws Exception {
    DistributedQueue<Order> orders = baton().queue("/queue/json", Codec.json(Order.class));
    orders.put(new Order("sku-42", 3));
    try (QueueItem<Order> item = orders.take()) {
      assertThat(item.value()).isEqualTo(new Order("sku-42", 3));
      assertThat(new String(item.data(), StandardCharsets.UTF_8)).isEqualTo("{\"sku\":\"sku-42\",\"quantity\":3}");
      item.ack();
    }
    DistributedQueue<byte[]> bytes = baton().queue("/queue/bytes", Codec.bytes());
    bytes.put(new byte[] {0, 1, 2, (byte) 255});
    try (QueueItem<byte[]> item = bytes.take()) {
      assertThat(item.value()).containsExactly(0, 1, 2, 255);
      item.ack();
    }
  }

  record Order(String sku, int quantity) {}

  @Test
  void undecodableItem_failsOnValue_namingThePath_andCanBeAcknowledged() throws Exception {
    String path = "/queue/undecodable";
    baton().queue(path, Codec.utf8()).put("not json");
    QueueItem<Order> item = baton().queue(path, Codec.json(Order.class)).take();
    assertThatThrownBy(item::value).isInstanceOf(BatonException.class)
        .hasMessageContaining(item.path()).hasMessageContaining(Order.class.getName());
    assertThat(item.data()).isEqualTo("not json".getBytes(StandardCharsets.UTF_8));
    item.ack();
    assertThat(items(path)).isEmpty();
  }

  /**
   * ZooKeeper's client refuses a reply over 1 MB - 1 byte (and a server a request over it), so
   * an item that could be written but never read back would block every consumer: the limit is
   * checked before anything is sent. The largest allowed item is written with the queue's path
   * (the path missing: the largest request) and read back.
   */
  @Test
  void itemOverTheSizeLimit_failsNamingPathAndSize_andWritesNothing() throws Exception {
    String path = "/queue/size";
    DistributedQueue<byte[]> queue = baton().queue(path, Codec.bytes());
    // The packet limit, less the multi that creates path and item (request header 8, operation
    // headers 27, two creates of 12 bytes each around their paths and open ACLs of 27), less
    // the item format's 10 bytes.
    int largest = 0xfffff - (8 + 27 + (12 + path.length() + 27) + (12 + (path + "/queue-").length() + 27)) - 10;
    assertThatThrownBy(() -> queue.put(new byte[largest + 1]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(path)
        .hasMessageContaining((largest + 1) + " bytes")
        .hasMessageContaining("nothing was written");
    assertThat(raw.exists(path)).isFalse();

    byte[] value = new byte[largest];
    value[largest - 1] = 7;
    queue.put(value); // creates the path with the item
    queue.put(value); // into the existing path
    for (int i = 0; i < 2; i++) {
      try (QueueItem<byte[]> item = queue.take(WAIT).orElseThrow()) {
        assertThat(item.value()).isEqualTo(value);
        item.ack();
      }
    }
  }

  @Test
  void badInput_failsNamingTheArgument_andWritesNothing() throws Exception {
    Baton baton = baton();
    Set<String> before = raw.tree();
    assertThatThrownBy(() -> baton.queue(null, Codec.utf8())).hasMessageContaining("queue path");
    assertThatThrownBy(() -> baton.queue("no-slash", Codec.utf8()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("queue path");
    assertThatThrownBy(() -> baton.queue("/a//b", Codec.utf8()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("queue path");
    assertThatThrownBy(() -> baton.queue("/", Codec.utf8()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("queue path");
    assertThatThrownBy(() -> baton.queue("/queue/bad", null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("codec");

    DistributedQueue<String> queue = baton.queue("/queue/bad", Codec.utf8());
    assertThatThrownBy(() -> queue.put(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("item");
    assertThatThrownBy(() -> queue.take(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("timeout");
    assertThatThrownBy(() -> queue.take(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout");
    assertThatThrownBy(() -> queue.consume(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("handler");
    assertThatThrownBy(() -> queue.consume(v -> { }, (java.util.concurrent.Executor) null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("executor");
    assertThatThrownBy(() -> queue.consume(v -> { }, (ConsumerOptions) null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("options");
    assertThatThrownBy(() -> ConsumerOptions.defaults().withMaxAttempts(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxAttempts").hasMessageContaining("0");
    assertThatThrownBy(() -> ConsumerOptions.defaults().withBackOff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("max back-off");
    assertThatThrownBy(() -> ConsumerOptions.defaults().withDeadLetterPath("dead"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("dead-letter path");
    assertThatThrownBy(() -> Codec.json(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("type");
    Codec<String> nullCodec = new Codec<>() {
      @Override
      public byte[] encode(String value) {
        return null;
      }

      @Override
      public String decode(byte[] data) {
        return "";
      }
    };
    assertThatThrownBy(() -> baton.queue("/queue/bad", nullCodec).put("x"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("/queue/bad");
    assertThat(raw.tree()).isEqualTo(before);

    baton.close();
    assertThatThrownBy(() -> queue.put("x")).isInstanceOf(ClientClosedException.class);
    assertThatThrownBy(queue::take).isInstanceOf(ClientClosedException.class);
    assertThatThrownBy(() -> baton.queue("/queue/bad", Codec.utf8())).isInstanceOf(ClientClosedException.class);
  }

  @Test
  void clientClosedWhileTaking_failsTheWaitingTakes() throws Exception {
    Baton consumer = baton();
    DistributedQueue<String> queue = consumer.queue("/queue/closing", Codec.utf8());
    CompletableFuture<QueueItem<String>> waiting = queue.takeAsync();
    QueueConsumer callback = queue.consume(value -> { });
    await().atMost(WAIT).until(() -> cluster.watchesBySession(0).containsKey(consumer.sessionId()));
    consumer.close();
    assertThatThrownBy(() -> waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(ClientClosedException.class);
    await().atMost(WAIT).until(() -> !callback.isRunning());
  }

  @Test
  void manyAsyncTakersOfOneClient_shareOneListing_andEachGetsOneItem() throws Exception {
    String path = "/queue/many-takers";
    DistributedQueue<String> queue = baton().queue(path, Codec.utf8());
    List<CompletableFuture<QueueItem<String>>> takers = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      takers.add(queue.takeAsync());
    }
    DistributedQueue<String> producer = baton().queue(path, Codec.utf8());
    for (int i = 0; i < 200; i++) {
      producer.put("v" + i);
    }
    List<String> values = new ArrayList<>();
    for (CompletableFuture<QueueItem<String>> taker : takers) {
      QueueItem<String> item = taker.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      values.add(item.value());
      item.ack();
    }
    assertThat(values).doesNotHaveDuplicates().hasSize(200);
    assertThat(items(path)).isEmpty();
    assertThat(claims(path)).isEmpty();
  }

  @Test
  void cancelledFutureWhoseItemArrivedMeanwhile_givesItBack() throws Exception {
    String path = "/queue/cancel-race";
    DistributedQueue<String> queue = baton().queue(path, Codec.utf8());
    for (int round = 0; round < 20; round++) {
      queue.put("r" + round);
      CompletableFuture<QueueItem<String>> future = queue.takeAsync();
      boolean cancelled = future.cancel(false);
      if (!cancelled) {
        future.join().release();
      }
      // Whatever the race decided, the item is there for the next taker.
      QueueItem<String> item = queue.take(WAIT).orElseThrow();
      assertThat(item.value()).isEqualTo("r" + round);
      item.ack();
    }
    await().atMost(WAIT).until(() -> claims(path).isEmpty());
    assertThat(items(path)).isEmpty();
  }
}
